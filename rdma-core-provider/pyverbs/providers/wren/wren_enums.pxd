# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# The constants of <infiniband/wrendv.h>, as pyverbs.providers.wren.wren_enums.

#cython: language_level=3


cdef extern from 'infiniband/wrendv.h':

    cpdef enum wrendv_device_caps:
        WRENDV_DEVICE_CAP_RD
        WRENDV_DEVICE_CAP_RD_ORDERED
        WRENDV_DEVICE_CAP_RD_HANDSHAKE
        WRENDV_DEVICE_CAP_RDMA_WRITE
        WRENDV_DEVICE_CAP_RDMA_READ

    cpdef enum wrendv_qp_driver_type:
        WRENDV_QP_DRIVER_TYPE_RD

    cpdef enum wrendv_qp_flags:
        WRENDV_QP_FLAGS_ORDERED
        WRENDV_QP_FLAGS_HANDSHAKE
