# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""
pyverbs.providers.wren.wrendv: libwren's direct verbs.

- WrenContext.query_wren_device() -> WrenDVDeviceAttr (wrendv_query_device)
- WrenQP: a reliable-datagram (RD) QP, IBV_QPT_DRIVER, created with
  wrendv_create_qp() from a QPInitAttrEx and a WrenDVQPInitAttr; an
  extended QP, so both post_send() and the wr_*() calls work on it.
  Its work requests are addressed like UD ones (AH, remote QPN, Q_Key)
  and it goes RESET -> INIT -> RTR -> RTS like a UD QP.
- WrenAH.query_wren_ah() -> WrenDVAHAttr (wrendv_query_ah)
"""

import socket
import struct

from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.base import PyverbsRDMAErrno
cimport pyverbs.providers.wren.wren_enums as dve
cimport pyverbs.providers.wren.libwren as dv
from pyverbs.device cimport Context
from pyverbs.qp cimport QPInitAttrEx, QPAttr
from pyverbs.pd cimport PD
import pyverbs.enums as e


def dev_caps_to_str(caps):
    """
    Describe a wrendv_device_attr.device_caps value.
    :param caps: WRENDV_DEVICE_CAP_* bits
    :return: the names of the bits set, then the value in hex
    """
    names = {dve.WRENDV_DEVICE_CAP_RD: 'RD',
             dve.WRENDV_DEVICE_CAP_RD_ORDERED: 'RD ordered',
             dve.WRENDV_DEVICE_CAP_RD_HANDSHAKE: 'RD handshake',
             dve.WRENDV_DEVICE_CAP_RDMA_WRITE: 'RDMA write',
             dve.WRENDV_DEVICE_CAP_RDMA_READ: 'RDMA read'}
    return _bits_to_str(caps, names)


def qp_flags_to_str(flags):
    """
    Describe a wrendv_qp_init_attr.flags value.
    :param flags: WRENDV_QP_FLAGS_* bits
    :return: the names of the bits set, then the value in hex
    """
    names = {dve.WRENDV_QP_FLAGS_ORDERED: 'ordered',
             dve.WRENDV_QP_FLAGS_HANDSHAKE: 'handshake'}
    return _bits_to_str(flags, names)


def _bits_to_str(value, names):
    found = []
    rest = value
    for bit in sorted(names):
        if value & bit:
            found.append(names[bit])
            rest &= ~bit
    if rest:
        found.append(f'unknown {rest:#x}')
    return f'{", ".join(found) if found else "none"} ({value:#x})'


cdef class WrenContext(Context):
    """
    A context on a Wren device, which can also answer the direct-verbs
    device query.
    """
    def __init__(self, **kwargs):
        """
        Open a Wren device.
        :param kwargs: as for Context, name= in particular
        :return: None
        """
        super().__init__(**kwargs)

    def query_wren_device(self):
        """
        wrendv_query_device(): the device's Wren-specific attributes.
        :return: a WrenDVDeviceAttr
        """
        attr = WrenDVDeviceAttr()
        rc = dv.wrendv_query_device(self.context, &attr.device_attr,
                                    sizeof(attr.device_attr))
        if rc:
            raise PyverbsRDMAError(f'Failed to query Wren device {self.name}',
                                   rc)
        return attr


cdef class WrenDVDeviceAttr(PyverbsObject):
    """
    struct wrendv_device_attr, as filled in by wrendv_query_device().
    """
    @property
    def comp_mask(self):
        return self.device_attr.comp_mask

    @property
    def max_sq_wr(self):
        return self.device_attr.max_sq_wr

    @property
    def max_rq_wr(self):
        return self.device_attr.max_rq_wr

    @property
    def max_sq_sge(self):
        return self.device_attr.max_sq_sge

    @property
    def max_rq_sge(self):
        return self.device_attr.max_rq_sge

    @property
    def inline_buf_size(self):
        return self.device_attr.inline_buf_size

    @property
    def device_caps(self):
        return self.device_attr.device_caps

    @property
    def max_rd_msg_size(self):
        return self.device_attr.max_rd_msg_size

    @property
    def max_rdma_size(self):
        return self.device_attr.max_rdma_size

    def __str__(self):
        fmt = '{:22}: {:<20}\n'
        return fmt.format('comp_mask', self.comp_mask) + \
            fmt.format('Max SQ WR', self.max_sq_wr) + \
            fmt.format('Max RQ WR', self.max_rq_wr) + \
            fmt.format('Max SQ SGE', self.max_sq_sge) + \
            fmt.format('Max RQ SGE', self.max_rq_sge) + \
            fmt.format('Inline buffer size', self.inline_buf_size) + \
            fmt.format('Device capabilities',
                       dev_caps_to_str(self.device_caps)) + \
            fmt.format('Max RD message size', self.max_rd_msg_size) + \
            fmt.format('Max RDMA size', self.max_rdma_size)


cdef class WrenDVQPInitAttr(PyverbsObject):
    """
    struct wrendv_qp_init_attr: what wrendv_create_qp() adds to
    ibv_qp_init_attr_ex.
    """
    def __init__(self, driver_qp_type=dve.WRENDV_QP_DRIVER_TYPE_RD, flags=0,
                 comp_mask=0):
        """
        :param driver_qp_type: WRENDV_QP_DRIVER_TYPE_*
        :param flags: WRENDV_QP_FLAGS_* (ORDERED, HANDSHAKE)
        :param comp_mask: no bits are defined yet
        :return: None
        """
        super().__init__()
        self.qp_init_attr.comp_mask = comp_mask
        self.qp_init_attr.driver_qp_type = driver_qp_type
        self.qp_init_attr.flags = flags

    @property
    def comp_mask(self):
        return self.qp_init_attr.comp_mask

    @comp_mask.setter
    def comp_mask(self, val):
        self.qp_init_attr.comp_mask = val

    @property
    def driver_qp_type(self):
        return self.qp_init_attr.driver_qp_type

    @driver_qp_type.setter
    def driver_qp_type(self, val):
        self.qp_init_attr.driver_qp_type = val

    @property
    def flags(self):
        return self.qp_init_attr.flags

    @flags.setter
    def flags(self, val):
        self.qp_init_attr.flags = val

    def __str__(self):
        fmt = '{:22}: {:<20}\n'
        return fmt.format('comp_mask', self.comp_mask) + \
            fmt.format('Driver QP type', self.driver_qp_type) + \
            fmt.format('Flags', qp_flags_to_str(self.flags))


cdef class WrenQP(QPEx):
    """
    A Wren reliable-datagram QP, created by wrendv_create_qp().
    """
    def __init__(self, Context ctx not None, QPInitAttrEx attr_ex not None,
                 WrenDVQPInitAttr dv_init_attr=None, QPAttr qp_attr=None):
        """
        Create the QP.  attr_ex.qp_type is IBV_QPT_DRIVER and its comp_mask
        names IBV_QP_INIT_ATTR_PD; with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS the
        wr_*() calls are available as well as post_send().
        :param ctx: the Context to create it on
        :param attr_ex: QPInitAttrEx: CQs, PD, capabilities, send ops
        :param dv_init_attr: WrenDVQPInitAttr; an RD QP without flags if None
        :param qp_attr: if given, the QP is taken to RTS with it (pkey_index,
                        port_num, qkey and sq_psn are used)
        :return: An initialized WrenQP
        """
        cdef PD pd
        if dv_init_attr is None:
            dv_init_attr = WrenDVQPInitAttr()
        self.qp = dv.wrendv_create_qp(ctx.context, &attr_ex.attr,
                                      &dv_init_attr.qp_init_attr,
                                      sizeof(dv_init_attr.qp_init_attr))
        if self.qp == NULL:
            raise PyverbsRDMAErrno('Failed to create Wren RD QP')
        self.context = ctx
        ctx.add_ref(self)
        if attr_ex.pd is not None:
            pd = <PD>attr_ex.pd
            pd.add_ref(self)
            self.pd = pd
        super().__init__(ctx, attr_ex)
        if qp_attr is not None:
            self.to_rts(qp_attr)

    def _get_comp_mask(self, dst):
        # An RD QP moves through its states like a UD QP.
        masks = {'INIT': e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_QKEY,
                 'RTR': 0,
                 'RTS': e.IBV_QP_SQ_PSN}
        return masks[dst] | e.IBV_QP_STATE


cdef class WrenDVAHAttr(PyverbsObject):
    """
    struct wrendv_ah_attr, as filled in by wrendv_query_ah().
    """
    @property
    def comp_mask(self):
        return self.ah_attr.comp_mask

    @property
    def ahn(self):
        return self.ah_attr.ahn

    @property
    def ipv4_raw(self):
        """The destination's IPv4 address as stored: network byte order."""
        return self.ah_attr.ipv4

    @property
    def ipv4(self):
        """The destination's IPv4 address, dotted."""
        return socket.inet_ntoa(struct.pack('=I', self.ah_attr.ipv4))

    def __str__(self):
        fmt = '{:22}: {:<20}\n'
        return fmt.format('comp_mask', self.comp_mask) + \
            fmt.format('AH number', self.ahn) + \
            fmt.format('Destination IPv4', self.ipv4)


cdef class WrenAH(AH):
    """
    An address handle on a Wren device, which can also answer the
    direct-verbs query.
    """
    def query_wren_ah(self):
        """
        wrendv_query_ah(): the AH's number and destination.
        :return: a WrenDVAHAttr
        """
        if self.ah == NULL:
            raise PyverbsError('The AH is destroyed')
        attr = WrenDVAHAttr()
        rc = dv.wrendv_query_ah(self.ah, &attr.ah_attr, sizeof(attr.ah_attr))
        if rc:
            raise PyverbsRDMAError('Failed to query Wren AH', rc)
        return attr
