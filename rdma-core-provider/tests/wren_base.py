# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""
Test cases, resources and traffic helpers for Wren's reliable-datagram
(RD) QPs, the libwren direct verbs of pyverbs.providers.wren.

An RD QP is IBV_QPT_DRIVER, created by wrendv_create_qp(); its work
requests are addressed like UD ones (AH, remote QPN, Q_Key) and it goes
RESET -> INIT -> RTR -> RTS like a UD QP.  Unlike UD, its messages arrive
reliably and exactly once, up to max_rd_msg_size bytes, and a receive does
not start with a GRH.

The two players of a test, client and server, are on the same device and
port and address each other through an AH to the port's own GID.  The
adapter does not loop frames back by itself: the frames go out on the
adapter's wire and come back through the fabric, so the device must be
wired to one.
"""

import unittest
import random
import ctypes
import socket
import time
import os

from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QPAttr, QPCap, QPInitAttrEx
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.wr import SGE, SendWR, RecvWR
import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR

from tests.base import PyverbsAPITestCase, RDMATestCase, TrafficResources

try:
    import pyverbs.providers.wren.wren_enums as wren_e
    import pyverbs.providers.wren.wrendv as wrendv
    WRENDV_IMPORT_ERROR = None
except ImportError as ex:
    wren_e = None
    wrendv = None
    WRENDV_IMPORT_ERROR = ex


# The adapter's PCI identity (include/linux/wren/wren_if.h).
WREN_VENDOR_ID = 0x1234
WREN_DEVICE_ID = 0x5752

# What the device ABI's largest queue entries hold
# (include/linux/wren/wren_if.h): WREN_SQ_WQE_SGE(WREN_SQ_WQE_SHIFT_MAX),
# WREN_RQ_WQE_SGE(WREN_RQ_WQE_SHIFT_MAX) and
# WREN_SQ_WQE_INLINE(WREN_SQ_WQE_SHIFT_MAX).
WREN_MAX_SEND_SGE = 29
WREN_MAX_RECV_SGE = 31
WREN_MAX_INLINE = 464

# Every RD QP is required to carry messages of at least this size.
WREN_MIN_RD_MSG_SIZE = 1 << 20

# Completion statuses of the device (wren_cqe.status), which libwren
# reports as the vendor error of a work completion.
WREN_CQE_LOC_LEN_ERR = 1
WREN_CQE_LOC_QP_OP_ERR = 2

RD_QKEY = 0x11111111
RD_PKEY_INDEX = 0

# The guests run under TCG: give a megabyte through the fabric its time.
RD_POLL_TIMEOUT = 60
# How long a CQ must stay empty to count as empty.
RD_QUIET_TIME = 1

IMM_DATA = 0x5752_0001


def is_wren_dev(ctx):
    attr = ctx.query_device()
    return attr.vendor_id == WREN_VENDOR_ID and \
        attr.vendor_part_id == WREN_DEVICE_ID


def check_wren_dev(test, ctx):
    """
    Skip the test on a device that is not a Wren adapter; fail it on one if
    pyverbs was built without the Wren module.
    """
    if not is_wren_dev(ctx):
        raise unittest.SkipTest('Can not run the test over a non Wren device')
    if WRENDV_IMPORT_ERROR is not None:
        test.fail(f'pyverbs.providers.wren is missing: {WRENDV_IMPORT_ERROR}')


class WrenAPITestCase(PyverbsAPITestCase):
    def setUp(self):
        super().setUp()
        check_wren_dev(self, self.ctx)


class WrenRDTestCase(RDMATestCase):
    """
    Two players, client and server, each a WrenRDResources on the chosen
    device and port, their QPs in RTS and an AH to each other.
    """
    def setUp(self):
        super().setUp()
        with d.Context(name=self.dev_name) as ctx:
            check_wren_dev(self, ctx)
        if self.gid_index is None:
            self.fail(f'{self.dev_name} port {self.ib_port} has no GID')

    def create_players(self, resource=None, server_args=None, **resource_args):
        """
        Create the client and the server, take their QPs to RTS and give
        each an AH to the other.  Unlike RDMATestCase.create_players,
        EOPNOTSUPP is an error here: what a Wren device cannot do shows in
        its capabilities, and the resources skip on those.
        :param resource: the resources class, WrenRDResources by default
        :param server_args: arguments of the server that differ from the
                            client's
        :param resource_args: arguments of both
        """
        resource = resource if resource else WrenRDResources
        self.client = resource(**self.dev_info, **resource_args)
        self.server = resource(**self.dev_info,
                               **dict(resource_args, **(server_args or {})))
        self.client.pre_run(self.server.psns, self.server.qps_num)
        self.server.pre_run(self.client.psns, self.client.qps_num)
        self.client.set_peer(self.server)
        self.server.set_peer(self.client)


class WrenRDResources(TrafficResources):
    """
    A Wren context with one CQ for sends and receives, one MR and qp_count
    RD QPs created by wrendv_create_qp().
    """
    def __init__(self, dev_name, ib_port, gid_index, qp_flags=0,
                 send_ops_flags=0, msg_size=1024, mr_size=None, wr_depth=64,
                 max_send_sge=1, max_recv_sge=1, max_inline_data=0,
                 qp_count=1):
        """
        :param qp_flags: WRENDV_QP_FLAGS_*; the test is skipped if the
                         device lacks the matching capability
        :param send_ops_flags: IBV_QP_EX_WITH_*; 0 for post_send() only
        :param msg_size: the size of the messages of the traffic helpers
        :param mr_size: the MR's length; msg_size (at least 1) if None
        :param wr_depth: requested send and receive queue depths; the CQ
                         holds both
        :param max_send_sge: requested send SGEs; None for the device's limit
        :param max_recv_sge: requested receive SGEs; None for the limit
        :param max_inline_data: requested inline bytes; None for the limit
        """
        self.qp_flags = qp_flags
        self.send_ops_flags = send_ops_flags
        self.mr_size = mr_size
        self.wr_depth = wr_depth
        self.req_send_sge = max_send_sge
        self.req_recv_sge = max_recv_sge
        self.req_inline = max_inline_data
        self.dv_attr = None
        self.ah = None
        self.peer_gid = None
        super().__init__(dev_name, ib_port, gid_index, qp_count=qp_count,
                         msg_size=msg_size)

    def create_context(self):
        self.ctx = wrendv.WrenContext(name=self.dev_name)
        self.dv_attr = self.ctx.query_wren_device()
        caps = self.dv_attr.device_caps
        if not caps & wren_e.WRENDV_DEVICE_CAP_RD:
            raise unittest.SkipTest(f'{self.dev_name} has no RD QPs')
        needed = {wren_e.WRENDV_QP_FLAGS_ORDERED:
                  wren_e.WRENDV_DEVICE_CAP_RD_ORDERED,
                  wren_e.WRENDV_QP_FLAGS_HANDSHAKE:
                  wren_e.WRENDV_DEVICE_CAP_RD_HANDSHAKE}
        for flag, cap in needed.items():
            if self.qp_flags & flag and not caps & cap:
                raise unittest.SkipTest(
                    f'{self.dev_name} lacks {wrendv.dev_caps_to_str(cap)}')

    def init_resources(self):
        self.num_msgs = self.wr_depth
        super().init_resources()

    def create_cq(self):
        self.cq = CQ(self.ctx, 2 * self.wr_depth * self.qp_count, None, None, 0)

    def create_mr(self):
        length = self.mr_size if self.mr_size else max(self.msg_size, 1)
        self.mr = MR(self.pd, length, e.IBV_ACCESS_LOCAL_WRITE)

    def create_qp_cap(self):
        dv = self.dv_attr
        send_sge = dv.max_sq_sge if self.req_send_sge is None else self.req_send_sge
        recv_sge = dv.max_rq_sge if self.req_recv_sge is None else self.req_recv_sge
        inline = dv.inline_buf_size if self.req_inline is None else self.req_inline
        return QPCap(max_send_wr=self.wr_depth, max_recv_wr=self.wr_depth,
                     max_send_sge=send_sge, max_recv_sge=recv_sge,
                     max_inline_data=inline)

    def create_qp_init_attr(self):
        comp_mask = e.IBV_QP_INIT_ATTR_PD
        if self.send_ops_flags:
            comp_mask |= e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
        return QPInitAttrEx(qp_type=e.IBV_QPT_DRIVER, cap=self.create_qp_cap(),
                            scq=self.cq, rcq=self.cq, pd=self.pd,
                            send_ops_flags=self.send_ops_flags,
                            comp_mask=comp_mask)

    def create_dv_qp_init_attr(self):
        return wrendv.WrenDVQPInitAttr(
            driver_qp_type=wren_e.WRENDV_QP_DRIVER_TYPE_RD,
            flags=self.qp_flags)

    def create_qps(self):
        attr_ex = self.create_qp_init_attr()
        dv_attr = self.create_dv_qp_init_attr()
        for _ in range(self.qp_count):
            qp = wrendv.WrenQP(self.ctx, attr_ex, dv_attr)
            self.qps.append(qp)
            self.qps_num.append(qp.qp_num)
            self.psns.append(random.getrandbits(24))

    def create_qp_attr(self):
        attr = QPAttr(port_num=self.ib_port)
        attr.qkey = RD_QKEY
        attr.pkey_index = RD_PKEY_INDEX
        return attr

    def to_rts(self):
        attr = self.create_qp_attr()
        for qp, psn in zip(self.qps, self.psns):
            attr.sq_psn = psn
            qp.to_rts(attr)

    def set_peer(self, peer):
        """
        Address the peer: an AH to its port's GID, on this player's PD.
        """
        self.peer_gid = peer.ctx.query_gid(peer.ib_port, peer.gid_index)
        self.ah = self.create_ah()

    def create_ah(self, pd=None):
        """
        Create an AH to the peer.
        :param pd: the PD of the AH; this player's by default
        :return: a WrenAH
        """
        gr = GlobalRoute(dgid=self.peer_gid, sgid_index=self.gid_index)
        ah_attr = AHAttr(port_num=self.ib_port, is_global=1, gr=gr,
                         dlid=self.port_attr.lid)
        return wrendv.WrenAH(pd if pd else self.pd, attr=ah_attr)


# Traffic helpers

def sge(player, offset, length):
    """An SGE over length bytes of the player's MR from offset."""
    return SGE(player.mr.buf + offset, length, player.mr.lkey)


def post_recv(player, sgl, wr_id=0, qp_idx=0):
    wr = RecvWR(wr_id=wr_id, num_sge=len(sgl), sg=sgl)
    player.qps[qp_idx].post_recv(wr, None)


def post_send(player, sgl, new_send=False, wr_id=0, qp_idx=0, ah=None,
              remote_qpn=None, imm_data=None, send_flags=e.IBV_SEND_SIGNALED,
              inline=False):
    """
    Post one send work request to the peer's QP.
    :param player: the sender
    :param sgl: the SGEs of the payload; at least one with post_send()
    :param new_send: use wr_start()/wr_*()/wr_complete() instead of
                     post_send()
    :param ah: the AH; the player's AH to its peer if None
    :param remote_qpn: the destination QP; the peer's QP qp_idx if None
    :param imm_data: if not None, send with this immediate (host order)
    :param inline: send the payload inline (IBV_SEND_INLINE)
    :return: None; a failure to post raises PyverbsRDMAError
    """
    qp = player.qps[qp_idx]
    ah = player.ah if ah is None else ah
    rqpn = player.rqps_num[qp_idx] if remote_qpn is None else remote_qpn
    if not new_send:
        if inline:
            send_flags |= e.IBV_SEND_INLINE
        opcode = e.IBV_WR_SEND if imm_data is None else e.IBV_WR_SEND_WITH_IMM
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=len(sgl), sg=sgl,
                    send_flags=send_flags)
        if imm_data is not None:
            wr.imm_data = socket.htonl(imm_data)
        wr.set_wr_ud(ah, rqpn, RD_QKEY)
        qp.post_send(wr, None)
        return
    qp.wr_start()
    qp.wr_id = wr_id
    qp.wr_flags = send_flags
    if imm_data is None:
        qp.wr_send()
    else:
        qp.wr_send_imm(imm_data)
    qp.wr_set_ud_addr(ah, rqpn, RD_QKEY)
    wr_set_payload(qp, sgl, inline)
    qp.wr_complete()


def wr_set_payload(qp, sgl, inline=False):
    """
    The payload of the work request being built with the ibv_wr_* API:
    inline (the first SGE's bytes), one SGE or an SGE list.
    """
    if inline:
        qp.wr_set_inline_data(sgl[0].addr, sgl[0].length)
    elif len(sgl) == 1:
        qp.wr_set_sge(sgl[0])
    else:
        qp.wr_set_sge_list(len(sgl), sgl)


def poll(cq, count, timeout=RD_POLL_TIMEOUT):
    """
    Poll count completions, whatever their status.
    :return: the list of WCs, in the order the CQ gave them
    """
    wcs = []
    deadline = time.monotonic() + timeout
    while len(wcs) < count:
        _, got = cq.poll(count - len(wcs))
        wcs.extend(got)
        if not got and time.monotonic() > deadline:
            raise PyverbsError(f'Timeout: {count - len(wcs)} of {count} '
                               'completions did not come')
    return wcs


def cq_is_quiet(cq, quiet_time=RD_QUIET_TIME):
    """
    Whether no completion comes within quiet_time seconds.  A completion
    that does come is consumed.
    """
    deadline = time.monotonic() + quiet_time
    while time.monotonic() < deadline:
        if cq.poll(1)[0]:
            return False
        time.sleep(0.01)
    return True


def wc_str(wc):
    return f'wr_id {wc.wr_id} status {wc.status} vendor_err {wc.vendor_err}' \
           f' opcode {wc.opcode} byte_len {wc.byte_len}'


def check_send_wcs(test, wcs, wr_ids):
    """
    The send completions are successful and come in send-queue order.
    """
    for wc in wcs:
        test.assertEqual(wc.status, e.IBV_WC_SUCCESS, wc_str(wc))
        test.assertEqual(wc.opcode, e.IBV_WC_SEND, wc_str(wc))
    test.assertEqual([wc.wr_id for wc in wcs], list(wr_ids),
                     'Send completions out of send-queue order')


def check_recv_wc(test, wc, receiver, sender, length, imm_data=None,
                  qp_idx=0):
    """
    A receive completion of an RD message: successful, from the sender's
    QP, length bytes placed without a GRH, with or without immediate.
    """
    test.assertEqual(wc.status, e.IBV_WC_SUCCESS, wc_str(wc))
    test.assertEqual(wc.opcode, e.IBV_WC_RECV, wc_str(wc))
    test.assertEqual(wc.byte_len, length, 'RD receive byte_len')
    test.assertEqual(wc.wc_flags & e.IBV_WC_GRH, 0, 'RD receive with a GRH')
    test.assertEqual(wc.qp_num, receiver.qps_num[qp_idx])
    test.assertEqual(wc.src_qp, sender.qps_num[qp_idx])
    if imm_data is None:
        test.assertEqual(wc.wc_flags & e.IBV_WC_WITH_IMM, 0)
    else:
        test.assertNotEqual(wc.wc_flags & e.IBV_WC_WITH_IMM, 0,
                            'Completion without immediate')
        test.assertEqual(socket.ntohl(wc.imm_data), imm_data)


def rd_send_one(test, sender, receiver, payload, new_send=False,
                imm_data=None, recv_len=None):
    """
    Send payload in one message from the start of the sender's MR to the
    start of the receiver's, and check both completions and the data.
    :param recv_len: the receive buffer's length; len(payload) (at least 1)
                     by default
    """
    size = len(payload)
    recv_len = max(size, 1) if recv_len is None else recv_len
    post_recv(receiver, [sge(receiver, 0, recv_len)], wr_id=size)
    if size:
        sender.mr.write(payload, size)
    post_send(sender, [sge(sender, 0, size)], new_send=new_send, wr_id=size,
              imm_data=imm_data)
    check_send_wcs(test, poll(sender.cq, 1), [size])
    wc, = poll(receiver.cq, 1)
    test.assertEqual(wc.wr_id, size)
    check_recv_wc(test, wc, receiver, sender, size, imm_data)
    test.assertEqual(receiver.mr.read(size, 0), payload,
                     f'Data of a {size}-byte message differs')


def rd_traffic(test, iters=10, new_send=False, imm_data=None):
    """
    iters round trips of msg_size bytes: client to server, then back.
    """
    client, server = test.client, test.server
    for _ in range(iters):
        for sender, receiver in ((client, server), (server, client)):
            payload = random.randbytes(sender.msg_size)
            rd_send_one(test, sender, receiver, payload, new_send, imm_data)


def rd_burst(test, sizes, new_send=False):
    """
    Post a receive per message on the server, then every message on the
    client in one go, message i of sizes[i] bytes with immediate i.  Check
    the send completions (in order) and that every message arrived exactly
    once, whole.
    :return: the immediates in the order the receives completed
    """
    client, server = test.client, test.server
    slot = max(max(sizes), 1)
    payloads = [random.randbytes(size) for size in sizes]
    for i in range(len(sizes)):
        post_recv(server, [sge(server, i * slot, slot)], wr_id=i)
    for i, payload in enumerate(payloads):
        if payload:
            client.mr.write(payload, len(payload), i * slot)
        post_send(client, [sge(client, i * slot, len(payload))],
                  new_send=new_send, wr_id=i, imm_data=i)
    check_send_wcs(test, poll(client.cq, len(sizes)), range(len(sizes)))
    wcs = poll(server.cq, len(sizes))
    order = []
    for wc in wcs:
        test.assertEqual(wc.status, e.IBV_WC_SUCCESS, wc_str(wc))
        seq = socket.ntohl(wc.imm_data)
        test.assertIn(seq, range(len(sizes)), f'Unknown message {seq}')
        check_recv_wc(test, wc, server, client, len(payloads[seq]), seq)
        test.assertEqual(server.mr.read(len(payloads[seq]), wc.wr_id * slot),
                         payloads[seq], f'Data of message {seq} differs')
        order.append(seq)
    test.assertEqual(sorted(order), list(range(len(sizes))),
                     'A message was lost or duplicated')
    test.assertTrue(cq_is_quiet(server.cq), 'A message arrived twice')
    return order


class AliasedBuffer:
    """
    length bytes of address space that show the same backing bytes of
    memory again and again: a large MR that costs little memory, for
    messages whose content does not matter.  Close it after the MRs over
    it are deregistered.
    """
    _libc = None

    def __init__(self, length, backing=2 << 20):
        libc = self._get_libc()
        self.length = -(-length // backing) * backing
        self.fd = os.memfd_create('wren-aliased')
        self.addr = None
        try:
            os.ftruncate(self.fd, backing)
            addr = libc.mmap(None, self.length, self.PROT_NONE,
                             self.MAP_PRIVATE | self.MAP_ANONYMOUS |
                             self.MAP_NORESERVE, -1, 0)
            self._check(addr, 'reserve')
            self.addr = addr
            for off in range(0, self.length, backing):
                got = libc.mmap(addr + off, backing,
                                self.PROT_READ | self.PROT_WRITE,
                                self.MAP_SHARED | self.MAP_FIXED, self.fd, 0)
                self._check(got, 'map')
        except BaseException:
            self.close()
            raise

    # <sys/mman.h> on Linux (Python's mmap module lacks some of them).
    PROT_NONE, PROT_READ, PROT_WRITE = 0, 1, 2
    MAP_SHARED, MAP_PRIVATE, MAP_FIXED = 0x01, 0x02, 0x10
    MAP_ANONYMOUS, MAP_NORESERVE = 0x20, 0x4000

    @classmethod
    def _get_libc(cls):
        if cls._libc is None:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mmap.restype = ctypes.c_void_p
            libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                  ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_long]
            libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
            cls._libc = libc
        return cls._libc

    @staticmethod
    def _check(addr, what):
        if addr is None or addr == ctypes.c_void_p(-1).value:
            err = ctypes.get_errno()
            raise OSError(err, f'Aliased buffer: {what}: {os.strerror(err)}')

    def close(self):
        if self.addr is not None:
            self._get_libc().munmap(self.addr, self.length)
            self.addr = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
