# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# The C interface of libwren's direct verbs, <infiniband/wrendv.h>.

#cython: language_level=3

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
cimport pyverbs.libibverbs as v


cdef extern from 'infiniband/wrendv.h':

    cdef struct wrendv_device_attr:
        uint64_t comp_mask
        uint32_t max_sq_wr
        uint32_t max_rq_wr
        uint16_t max_sq_sge
        uint16_t max_rq_sge
        uint16_t inline_buf_size
        uint8_t reserved[2]
        uint32_t device_caps
        uint32_t max_rd_msg_size
        uint32_t max_rdma_size

    cdef struct wrendv_qp_init_attr:
        uint64_t comp_mask
        uint32_t driver_qp_type
        uint32_t flags
        uint8_t reserved[8]

    cdef struct wrendv_ah_attr:
        uint64_t comp_mask
        uint32_t ahn
        uint32_t ipv4

    int wrendv_query_device(v.ibv_context *ibvctx,
                            wrendv_device_attr *attr, uint32_t inlen)
    v.ibv_qp *wrendv_create_qp(v.ibv_context *ibvctx,
                               v.ibv_qp_init_attr_ex *attr_ex,
                               wrendv_qp_init_attr *wrendv_attr,
                               uint32_t inlen)
    int wrendv_query_ah(v.ibv_ah *ibvah, wrendv_ah_attr *attr,
                        uint32_t inlen)
