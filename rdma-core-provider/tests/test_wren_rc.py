# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""
The error paths of Wren's RC queue pairs through the verbs: receiver not
ready retried and exhausted, a peer that is gone, a remote access error
moving both QPs to the error state, and flushing; and the largest
message.  The other success paths are rdma-core's own tests (test_qp,
test_mr, test_atomic, test_srq) and the pingpong programs.
"""

import ctypes
import ipaddress
import random
import subprocess
import time

from pyverbs.qp import QPAttr, QPCap
from pyverbs.srq import SrqAttr
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.wr import SGE, SendWR, RecvWR
import pyverbs.enums as e

from tests.base import RCResources, RDMATestCase
import tests.wren_base as wb


class WrenRCResources(RCResources):
    """
    RC resources whose QPs take the RNR policy given: min_rnr_timer 1
    (10 us) so that a test waits little, rnr_retry as asked; connected to
    each other, or both to the adapter of GID dgid.
    """
    def __init__(self, dev_name, ib_port, gid_index, rnr_retry=7, dgid=None,
                 **kwargs):
        self.rnr_retry = rnr_retry
        self.dgid = dgid
        super().__init__(dev_name=dev_name, ib_port=ib_port,
                         gid_index=gid_index, **kwargs)

    def to_rts(self):
        attr = self.create_qp_attr()
        attr.path_mtu = e.IBV_MTU_1024
        attr.max_dest_rd_atomic = 1
        attr.max_rd_atomic = 1
        attr.min_rnr_timer = 1
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = self.rnr_retry
        dgid = self.dgid or self.ctx.query_gid(self.ib_port, self.gid_index)
        gr = GlobalRoute(dgid=dgid, sgid_index=self.gid_index)
        attr.ah_attr = AHAttr(port_num=self.ib_port, is_global=1, gr=gr,
                              dlid=self.port_attr.lid)
        for i in range(self.qp_count):
            attr.dest_qp_num = self.rqps_num[i]
            attr.rq_psn = self.psns[i]
            attr.sq_psn = self.rpsns[i]
            self.qps[i].to_rts(attr)


class WrenRCSGLResources(WrenRCResources):
    """
    RC QPs (on an SRQ with with_srq) whose work requests carry SGL_LEN
    SGEs each way, or INLINE_LEN inline bytes: the middleware sizes that
    the device's larger queue entries exist for.
    """
    SGL_LEN = 16
    INLINE_LEN = 256

    def __init__(self, dev_name, ib_port, gid_index, with_srq=False):
        super().__init__(dev_name=dev_name, ib_port=ib_port,
                         gid_index=gid_index, with_srq=with_srq,
                         msg_size=4096)

    def create_qp_cap(self):
        return QPCap(max_send_wr=self.num_msgs, max_recv_wr=self.num_msgs,
                     max_send_sge=self.SGL_LEN, max_recv_sge=self.SGL_LEN,
                     max_inline_data=self.INLINE_LEN)

    def create_srq_attr(self):
        return SrqAttr(max_wr=self.num_msgs, max_sge=self.SGL_LEN)


def qp_state(player):
    attr, _ = player.qp.query(e.IBV_QP_STATE)
    return attr.qp_state


def send(player, opcode=e.IBV_WR_SEND, wr_id=1, rkey=None):
    sge = SGE(player.mr.buf, 64, player.mr.lkey)
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge])
    if rkey is not None:
        wr.set_wr_rdma(rkey, player.mr.buf)
    player.qp.post_send(wr)


def recv(player, wr_id=1):
    sge = SGE(player.mr.buf, player.msg_size, player.mr.lkey)
    player.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[sge]))


class WrenRCErrorTest(RDMATestCase):
    def setUp(self):
        super().setUp()
        self.iters = 1

    def players(self, rnr_retry=7, dgid=None):
        self.create_players(WrenRCResources, rnr_retry=rnr_retry, dgid=dgid)

    def test_rc_rnr_retried(self):
        """
        A SEND that finds no receive is sent again until one is posted
        (rnr_retry 7: without end), then completes at both ends.
        """
        self.players()
        send(self.client)
        time.sleep(0.05)
        self.assertTrue(wb.cq_is_quiet(self.client.cq),
                        'A SEND completed with no receive posted')
        recv(self.server)
        wc, = wb.poll(self.client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        wc, = wb.poll(self.server.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(qp_state(self.client), e.IBV_QPS_RTS)

    def test_rc_rnr_exhausted(self):
        """
        With rnr_retry 0 a SEND without a receive fails with
        RNR_RETRY_EXC_ERR; the requester goes to ERR, what follows is
        flushed; the responder stays in RTS.
        """
        self.players(rnr_retry=0)
        send(self.client, wr_id=1)
        send(self.client, wr_id=2)
        wcs = wb.poll(self.client.cq, 2)
        self.assertEqual(wcs[0].wr_id, 1)
        self.assertEqual(wcs[0].status, e.IBV_WC_RNR_RETRY_EXC_ERR,
                         wb.wc_str(wcs[0]))
        self.assertEqual(wcs[1].status, e.IBV_WC_WR_FLUSH_ERR,
                         wb.wc_str(wcs[1]))
        self.assertEqual(qp_state(self.client), e.IBV_QPS_ERR)
        self.assertEqual(qp_state(self.server), e.IBV_QPS_RTS)

    def test_rc_remote_access_error(self):
        """
        A WRITE with a key the responder does not know: REM_ACCESS_ERR at
        the requester, and both QPs in ERR, the responder's receive
        flushed.
        """
        self.players()
        recv(self.server, wr_id=7)
        send(self.client, e.IBV_WR_RDMA_WRITE, rkey=self.server.mr.rkey ^ 0x100)
        wc, = wb.poll(self.client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_REM_ACCESS_ERR, wb.wc_str(wc))
        self.assertEqual(qp_state(self.client), e.IBV_QPS_ERR)
        wc, = wb.poll(self.server.cq, 1)
        self.assertEqual(wc.wr_id, 7)
        self.assertEqual(wc.status, e.IBV_WC_WR_FLUSH_ERR, wb.wc_str(wc))
        self.assertEqual(qp_state(self.server), e.IBV_QPS_ERR)

    def test_rc_flush(self):
        """
        A QP moved to ERR completes every posted receive and every send
        posted after with WR_FLUSH_ERR, in order.
        """
        self.players()
        for i in range(3):
            recv(self.server, wr_id=i)
        self.server.qp.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
        send(self.server, wr_id=10)
        wcs = wb.poll(self.server.cq, 4)
        self.assertEqual([wc.wr_id for wc in wcs], [0, 1, 2, 10])
        for wc in wcs:
            self.assertEqual(wc.status, e.IBV_WC_WR_FLUSH_ERR, wb.wc_str(wc))

    def neighbour(self, ipv4):
        """
        On a RoCE port the kernel resolves the peer's MAC before RTR: give
        @ipv4 the neighbour entry a peer that went away leaves behind.
        """
        ndevs = (f'/sys/class/infiniband/{self.dev_name}/ports/'
                 f'{self.ib_port}/gid_attrs/ndevs/{self.gid_index}')
        try:
            with open(ndevs) as f:
                ndev = f.read().strip()
        except OSError:
            return      # not RoCE: no neighbours to resolve
        subprocess.check_call(['ip', 'neigh', 'replace', str(ipv4), 'lladdr',
                               '02:00:00:00:00:01', 'dev', ndev,
                               'nud', 'permanent'])
        self.addCleanup(subprocess.call, ['ip', 'neigh', 'del', str(ipv4),
                                          'dev', ndev])

    def test_rc_peer_gone(self):
        """
        QPs whose peer adapter does not exist (an address of the subnet
        nobody holds): a SEND fails with RETRY_EXC_ERR once the context's
        retries are spent, the next is flushed, the QP is in ERR.
        """
        ctx = Context(name=self.dev_name)
        try:
            own = ipaddress.ip_address(
                ctx.query_gid(self.ib_port, self.gid_index).gid)
        finally:
            ctx.close()
        nobody = ipaddress.IPv6Address(int(own) ^ 0x80)
        self.assertIsNotNone(nobody.ipv4_mapped, str(own))
        self.neighbour(nobody.ipv4_mapped)
        self.players(dgid=GID(nobody.exploded))
        start = time.monotonic()
        send(self.client, wr_id=1)
        send(self.client, wr_id=2)
        wcs = wb.poll(self.client.cq, 2)
        took = time.monotonic() - start
        self.assertEqual(wcs[0].wr_id, 1)
        self.assertEqual(wcs[0].status, e.IBV_WC_RETRY_EXC_ERR,
                         wb.wc_str(wcs[0]))
        self.assertEqual(wcs[1].status, e.IBV_WC_WR_FLUSH_ERR,
                         wb.wc_str(wcs[1]))
        self.assertEqual(qp_state(self.client), e.IBV_QPS_ERR)
        print(f'# peer gone: the SEND failed after {took * 1000:.0f} ms')

    def test_rc_largest_message(self):
        """
        A SEND of the port's max_msg_sz (2 GiB) lands whole in one
        receive; one byte more fails with LOC_LEN_ERR.  Both buffers show
        the same 2 MiB again and again, so the message costs no memory:
        the receiver's 2 MiB must end as the sender's.
        """
        self.players()
        client, server = self.client, self.server
        size = client.ctx.query_port(self.ib_port).max_msg_sz
        self.assertEqual(size, 2 << 30)
        bufs = []
        for player in (client, server):
            buf = wb.AliasedBuffer(size + 1)
            self.addCleanup(buf.close)
            mr = MR(player.pd, buf.length, e.IBV_ACCESS_LOCAL_WRITE,
                    address=buf.addr)
            self.addCleanup(mr.close)
            bufs.append((buf, mr))
        (src, smr), (dst, dmr) = bufs
        pattern = random.randbytes(2 << 20)
        ctypes.memmove(src.addr, pattern, len(pattern))
        server.qp.post_recv(RecvWR(wr_id=5, num_sge=1,
                                   sg=[SGE(dst.addr, size, dmr.lkey)]))
        client.qp.post_send(SendWR(wr_id=6, num_sge=1,
                                   sg=[SGE(src.addr, size, smr.lkey)]))
        wc, = wb.poll(server.cq, 1, timeout=600)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(wc.byte_len, size)
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(ctypes.string_at(dst.addr, len(pattern)), pattern)
        client.qp.post_send(SendWR(wr_id=7, num_sge=1,
                                   sg=[SGE(src.addr, size + 1, smr.lkey)]))
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_LOC_LEN_ERR, wb.wc_str(wc))

    def sgl_round(self, with_srq):
        """
        One SEND gathered from SGL_LEN pieces of the client's MR, taken in
        reverse order, scattered into SGL_LEN pieces of the server's 100
        bytes apart; then an inline SEND of INLINE_LEN bytes.
        """
        self.create_players(WrenRCSGLResources, with_srq=with_srq)
        client, server = self.client, self.server
        n, piece = WrenRCSGLResources.SGL_LEN, 64
        attr, init = client.qp.query(e.IBV_QP_CAP)
        self.assertGreaterEqual(init.cap.max_send_sge, n)
        self.assertGreaterEqual(init.cap.max_inline_data,
                                WrenRCSGLResources.INLINE_LEN)
        payload = random.randbytes(n * piece)
        client.mr.write(payload, len(payload))
        server.mr.write(bytes(server.msg_size), server.msg_size)
        sends = [SGE(client.mr.buf + (n - 1 - i) * piece, piece,
                     client.mr.lkey) for i in range(n)]
        recvs = [SGE(server.mr.buf + i * (piece + 100), piece,
                     server.mr.lkey) for i in range(n)]
        queue = server.srq if with_srq else server.qp
        queue.post_recv(RecvWR(wr_id=1, num_sge=n, sg=recvs))
        client.qp.post_send(SendWR(wr_id=2, num_sge=n, sg=sends))
        wc, = wb.poll(server.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(wc.byte_len, n * piece)
        got = server.mr.read(server.msg_size, 0)
        want = b''.join(payload[(n - 1 - i) * piece:(n - i) * piece]
                        for i in range(n))
        self.assertEqual(b''.join(got[i * (piece + 100):
                                      i * (piece + 100) + piece]
                                  for i in range(n)), want)
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))

        inline = random.randbytes(WrenRCSGLResources.INLINE_LEN)
        client.mr.write(inline, len(inline))
        queue.post_recv(RecvWR(wr_id=3, num_sge=1,
                               sg=[SGE(server.mr.buf, len(inline),
                                       server.mr.lkey)]))
        client.qp.post_send(SendWR(wr_id=4, num_sge=1,
                                   sg=[SGE(client.mr.buf, len(inline),
                                           client.mr.lkey)],
                                   send_flags=e.IBV_SEND_INLINE |
                                   e.IBV_SEND_SIGNALED))
        wc, = wb.poll(server.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(server.mr.read(len(inline), 0), inline)
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))

    def test_rc_sixteen_sges(self):
        """
        Work requests of 16 SGEs both ways and 256 inline bytes, as UCX
        and libfabric ask for, on a QP's own receive queue.
        """
        self.sgl_round(with_srq=False)

    def test_rc_sixteen_sges_srq(self):
        """
        The same with the receives on an SRQ of 16-SGE entries.
        """
        self.sgl_round(with_srq=True)
