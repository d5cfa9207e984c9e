# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""
Tests of Wren's direct verbs and reliable-datagram (RD) QPs.

The traffic tests run between two players on one device; their frames
leave on the adapter's wire and come back through the fabric.
"""

import random
import socket
import errno

from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QPAttr, QPCap, QPInitAttrEx
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.wr import SGE
import pyverbs.enums as e
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.cq import CQ

from tests.wren_base import WrenAPITestCase, WrenRDTestCase, wrendv, wren_e
from tests.wren_base import RD_QKEY, RD_PKEY_INDEX, WREN_MAX_SEND_SGE, \
    WREN_MAX_RECV_SGE, WREN_MAX_INLINE, WREN_MIN_RD_MSG_SIZE, \
    WREN_CQE_LOC_LEN_ERR, WREN_CQE_LOC_QP_OP_ERR, IMM_DATA
import tests.wren_base as wb
import tests.utils as u


# The first QP number a Wren device gives (0 and 1 are the special QPs).
WREN_QPN_FIRST = 2

# The largest message the traffic tests send, even when the device allows
# more: the guests have 1 GiB of memory and an emulated CPU.
RD_MAX_TEST_MSG_SIZE = 4 << 20

# A burst of messages of mixed sizes: large ones ahead of small ones, so
# that out-of-order completion would show.
RD_BURST_SIZES = [262144, 0, 1, 4097, 65536, 64, 4096, 131072,
                  9000, 262144, 17, 0, 200000, 4095, 1024, 8192,
                  1, 100000, 33, 65535, 2, 262143, 4096, 7]

SEND_OPS = e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM


class WrenDVDeviceTest(WrenAPITestCase):
    """
    The direct verbs on one context, no traffic.
    """
    def create_context(self):
        if wrendv is None:
            super().create_context()
        else:
            self.ctx = wrendv.WrenContext(name=self.dev_name)

    def rd_qp_init_attr(self, pd, cq, **caps):
        dv = self.ctx.query_wren_device()
        cap = dict(max_send_wr=16, max_recv_wr=16,
                   max_send_sge=dv.max_sq_sge, max_recv_sge=dv.max_rq_sge,
                   max_inline_data=dv.inline_buf_size)
        cap.update(caps)
        return QPInitAttrEx(qp_type=e.IBV_QPT_DRIVER, cap=QPCap(**cap),
                            scq=cq, rcq=cq, pd=pd, send_ops_flags=SEND_OPS,
                            comp_mask=e.IBV_QP_INIT_ATTR_PD |
                            e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

    def test_wrendv_query_device(self):
        """
        wrendv_query_device() reports RD QPs and limits that agree with
        ibv_query_device(), ibv_query_port() and the device ABI.
        """
        dv = self.ctx.query_wren_device()
        if self.config['verbosity']:
            print(f'\n{dv}')
        port = self.ctx.query_port(self.ib_port)
        self.assertTrue(dv.device_caps & wren_e.WRENDV_DEVICE_CAP_RD,
                        'RD QPs not reported')
        self.assertEqual(max(dv.max_sq_wr, dv.max_rq_wr), self.attr.max_qp_wr)
        self.assertGreater(dv.max_sq_wr, 0)
        self.assertGreater(dv.max_rq_wr, 0)
        # uverbs reports the smaller of the send and receive SGE limits.
        self.assertEqual(min(dv.max_sq_sge, dv.max_rq_sge), self.attr.max_sge)
        self.assertIn(dv.max_sq_sge, range(1, WREN_MAX_SEND_SGE + 1))
        self.assertIn(dv.max_rq_sge, range(1, WREN_MAX_RECV_SGE + 1))
        self.assertIn(dv.inline_buf_size, range(1, WREN_MAX_INLINE + 1))
        self.assertGreaterEqual(dv.max_rd_msg_size, WREN_MIN_RD_MSG_SIZE)
        self.assertLessEqual(dv.max_rd_msg_size, port.max_msg_sz)

    def test_wrendv_query_ah(self):
        """
        wrendv_query_ah() gives each AH its own number, below max_ah, and
        the destination IPv4 address of the GID it was created with.
        """
        gid = self.ctx.query_gid(self.ib_port, self.gid_index)
        words = gid.gid.split(':')
        self.assertEqual(words[:6], ['0000'] * 5 + ['ffff'],
                         f'GID {gid.gid} is not IPv4-mapped')
        ipv4 = socket.inet_ntoa(bytes.fromhex(words[6] + words[7]))
        gr = GlobalRoute(dgid=gid, sgid_index=self.gid_index)
        ah_attr = AHAttr(port_num=self.ib_port, is_global=1, gr=gr)
        with PD(self.ctx) as pd:
            ahs = [wrendv.WrenAH(pd, attr=ah_attr) for _ in range(2)]
            attrs = [ah.query_wren_ah() for ah in ahs]
            if self.config['verbosity']:
                print(f'\n{attrs[0]}')
            for attr in attrs:
                self.assertEqual(attr.ipv4, ipv4)
                self.assertLess(attr.ahn, self.attr.max_ah)
            self.assertNotEqual(attrs[0].ahn, attrs[1].ahn)

    def test_wrendv_create_rd_qp(self):
        """
        wrendv_create_qp() creates an RD QP, with each flag the device
        supports, in RESET with at least the capabilities asked for; it
        goes to RTS with the UD attributes.
        """
        dv = self.ctx.query_wren_device()
        flag_caps = [(0, wren_e.WRENDV_DEVICE_CAP_RD),
                     (wren_e.WRENDV_QP_FLAGS_ORDERED,
                      wren_e.WRENDV_DEVICE_CAP_RD_ORDERED),
                     (wren_e.WRENDV_QP_FLAGS_HANDSHAKE,
                      wren_e.WRENDV_DEVICE_CAP_RD_HANDSHAKE)]
        with PD(self.ctx) as pd, CQ(self.ctx, 64) as cq:
            for flags, cap in flag_caps:
                if not dv.device_caps & cap:
                    continue
                with self.subTest(flags=wrendv.qp_flags_to_str(flags)):
                    qia = self.rd_qp_init_attr(pd, cq)
                    qp = wrendv.WrenQP(self.ctx, qia,
                                       wrendv.WrenDVQPInitAttr(flags=flags))
                    self.assertEqual(qp.qp_type, e.IBV_QPT_DRIVER)
                    self.assertEqual(qp.qp_state, e.IBV_QPS_RESET)
                    self.assertGreaterEqual(qp.qp_num, WREN_QPN_FIRST)
                    attr, _ = qp.query(e.IBV_QP_CAP)
                    self.assertIn(attr.cap.max_send_wr, range(16, dv.max_sq_wr + 1))
                    self.assertIn(attr.cap.max_recv_wr, range(16, dv.max_rq_wr + 1))
                    self.assertEqual(attr.cap.max_send_sge, dv.max_sq_sge)
                    self.assertEqual(attr.cap.max_recv_sge, dv.max_rq_sge)
                    self.assertEqual(attr.cap.max_inline_data, dv.inline_buf_size)
                    qp_attr = QPAttr(port_num=self.ib_port)
                    qp_attr.qkey = RD_QKEY
                    qp_attr.pkey_index = RD_PKEY_INDEX
                    qp_attr.sq_psn = 0
                    qp.to_rts(qp_attr)
                    self.assertEqual(qp.qp_state, e.IBV_QPS_RTS)
                    attr, _ = qp.query(e.IBV_QP_STATE | e.IBV_QP_QKEY)
                    self.assertEqual(attr.qp_state, e.IBV_QPS_RTS)
                    self.assertEqual(attr.qkey, RD_QKEY)
                    qp.close()

    def test_wrendv_create_rd_qp_caps_bad_flow(self):
        """
        wrendv_create_qp() refuses capabilities beyond the device's limits
        with EINVAL.
        """
        dv = self.ctx.query_wren_device()
        too_much = {'max_send_wr': dv.max_sq_wr + 1,
                    'max_recv_wr': dv.max_rq_wr + 1,
                    'max_send_sge': dv.max_sq_sge + 1,
                    'max_recv_sge': dv.max_rq_sge + 1,
                    'max_inline_data': dv.inline_buf_size + 1}
        with PD(self.ctx) as pd, CQ(self.ctx, 64) as cq:
            for field, value in too_much.items():
                with self.subTest(field=field):
                    qia = self.rd_qp_init_attr(pd, cq, **{field: value})
                    with self.assertRaises(PyverbsRDMAError) as ex:
                        wrendv.WrenQP(self.ctx, qia, wrendv.WrenDVQPInitAttr())
                    self.assertEqual(ex.exception.error_code, errno.EINVAL)


class WrenRDTest(WrenRDTestCase):
    """
    Traffic between two RD QPs, and what must fail.
    """
    def setUp(self):
        super().setUp()
        self.iters = 10

    def close_players(self):
        for player in (self.client, self.server):
            if player:
                player.ctx.close()
        self.client = self.server = None

    def test_rd_send(self):
        """
        Round trips of SENDs with post_send(): each message arrives once,
        whole, without a GRH, from the sending QP.
        """
        self.create_players()
        wb.rd_traffic(self, self.iters)

    def test_rd_send_new_api(self):
        """
        The same with ibv_wr_send() and ibv_wr_set_ud_addr().
        """
        self.create_players(send_ops_flags=e.IBV_QP_EX_WITH_SEND)
        wb.rd_traffic(self, self.iters, new_send=True)

    def test_rd_send_imm(self):
        """
        SEND with immediate, both APIs: the receive completion carries the
        immediate data and IBV_WC_WITH_IMM.
        """
        self.create_players(send_ops_flags=SEND_OPS)
        for new_send in (False, True):
            with self.subTest(new_send=new_send):
                wb.rd_traffic(self, self.iters, new_send=new_send,
                              imm_data=IMM_DATA)

    def test_rd_zero_size(self):
        """
        Zero-byte messages, both APIs: they complete with byte_len 0.
        """
        self.create_players(send_ops_flags=SEND_OPS, msg_size=0)
        for new_send in (False, True):
            with self.subTest(new_send=new_send):
                wb.rd_traffic(self, self.iters, new_send=new_send)
                wb.rd_traffic(self, 1, new_send=new_send, imm_data=IMM_DATA)

    def test_rd_large_messages(self):
        """
        Messages up to max_rd_msg_size (at least 1 MiB; 4 MiB at most are
        tried) arrive whole and exact.
        """
        self.create_players(msg_size=RD_MAX_TEST_MSG_SIZE, wr_depth=4)
        limit = self.client.dv_attr.max_rd_msg_size
        self.assertGreaterEqual(limit, WREN_MIN_RD_MSG_SIZE)
        top = min(limit, RD_MAX_TEST_MSG_SIZE)
        sizes = sorted(s for s in {4095, 4096, 4097, 65537, (1 << 20) - 1,
                                   1 << 20, top} if s <= top)
        for size in sizes:
            with self.subTest(size=size):
                wb.rd_send_one(self, self.client, self.server,
                               random.randbytes(size), recv_len=top)
        wb.rd_send_one(self, self.server, self.client, random.randbytes(top))

    def test_rd_send_max_sgl(self):
        """
        A message gathered from max_sq_sge scattered pieces arrives whole
        in a receive of max_rq_sge scattered pieces, both APIs.
        """
        # Room for max_sq_sge pieces of up to 4 KiB, 64 bytes apart.
        self.create_players(send_ops_flags=SEND_OPS, max_send_sge=None,
                            max_recv_sge=None, msg_size=256 * 1024)
        client, server = self.client, self.server
        n_send = client.dv_attr.max_sq_sge
        n_recv = server.dv_attr.max_rq_sge
        for new_send in (False, True):
            with self.subTest(new_send=new_send):
                lengths = [random.randint(1, 4096) for _ in range(n_send)]
                send_sgl, pieces, off = [], [], 0
                for length in lengths:
                    off += random.randint(1, 64)
                    piece = random.randbytes(length)
                    client.mr.write(piece, length, off)
                    send_sgl.append(wb.sge(client, off, length))
                    pieces.append(piece)
                    off += length
                total = sum(lengths)
                recv_lengths = [total // n_recv] * (n_recv - 1)
                recv_lengths.append(total - sum(recv_lengths) + 100)
                recv_sgl, off = [], 0
                for length in recv_lengths:
                    off += random.randint(1, 64)
                    recv_sgl.append(wb.sge(server, off, length))
                    off += length
                wb.post_recv(server, recv_sgl, wr_id=7)
                wb.post_send(client, send_sgl, new_send=new_send, wr_id=7)
                wb.check_send_wcs(self, wb.poll(client.cq, 1), [7])
                wc, = wb.poll(server.cq, 1)
                wb.check_recv_wc(self, wc, server, client, total)
                got = b''.join(server.mr.read(s.length, s.addr - server.mr.buf)
                               for s in recv_sgl)
                self.assertEqual(got[:total], b''.join(pieces))

    def test_rd_send_inline(self):
        """
        An inline message of inline_buf_size bytes, both APIs: the payload
        is taken when posted (the buffer is overwritten right after) and
        arrives whole.
        """
        self.create_players(send_ops_flags=SEND_OPS, max_inline_data=None,
                            mr_size=4096)
        client, server = self.client, self.server
        size = client.dv_attr.inline_buf_size
        for new_send in (False, True):
            with self.subTest(new_send=new_send):
                payload = random.randbytes(size)
                client.mr.write(payload, size)
                wb.post_recv(server, [wb.sge(server, 0, size)], wr_id=1)
                wb.post_send(client, [wb.sge(client, 0, size)],
                             new_send=new_send, wr_id=1, inline=True)
                client.mr.write(bytes(size), size)
                wb.check_send_wcs(self, wb.poll(client.cq, 1), [1])
                wc, = wb.poll(server.cq, 1)
                wb.check_recv_wc(self, wc, server, client, size)
                self.assertEqual(server.mr.read(size, 0), payload)

    def test_rd_handshake(self):
        """
        Round trips between RD QPs in handshake establishment mode.
        """
        self.create_players(qp_flags=wren_e.WRENDV_QP_FLAGS_HANDSHAKE)
        wb.rd_traffic(self, self.iters)

    def test_rd_burst_exactly_once(self):
        """
        A burst of messages of mixed sizes on a default (unordered) RD QP:
        send completions come in send-queue order, every message arrives
        exactly once and whole.
        """
        slot = max(RD_BURST_SIZES)
        self.create_players(mr_size=len(RD_BURST_SIZES) * slot)
        wb.rd_burst(self, RD_BURST_SIZES)

    def test_rd_ordered(self):
        """
        The same burst on ORDERED RD QPs, both APIs: the receives complete
        in the order the messages were sent.
        """
        slot = max(RD_BURST_SIZES)
        self.create_players(qp_flags=wren_e.WRENDV_QP_FLAGS_ORDERED,
                            send_ops_flags=SEND_OPS,
                            mr_size=len(RD_BURST_SIZES) * slot)
        for new_send in (False, True):
            with self.subTest(new_send=new_send):
                order = wb.rd_burst(self, RD_BURST_SIZES, new_send=new_send)
                self.assertEqual(order, list(range(len(RD_BURST_SIZES))),
                                 'ORDERED receives completed out of order')

    def test_rd_resize_cq_waiting(self):
        """
        ibv_resize_cq() on a CQ that holds completions not yet polled: a
        ring too small for them is refused with EINVAL and changes
        nothing; a larger one takes them along, and they come out of it
        whole and in order, followed by later ones.
        """
        count, slot = 12, 64
        self.create_players(qp_flags=wren_e.WRENDV_QP_FLAGS_ORDERED,
                            msg_size=slot, wr_depth=16,
                            mr_size=(count + 4) * slot)
        client, server = self.client, self.server

        def burst(first, n):
            for i in range(first, first + n):
                wb.post_recv(server, [wb.sge(server, i * slot, slot)],
                             wr_id=i)
            for i in range(first, first + n):
                client.mr.write(bytes([i]) * slot, slot, i * slot)
                wb.post_send(client, [wb.sge(client, i * slot, slot)],
                             wr_id=i, imm_data=i)
            # Delivered, so the server's completions are in its ring.
            wb.check_send_wcs(self, wb.poll(client.cq, n),
                              range(first, first + n))

        def take(n, first):
            for i, wc in enumerate(wb.poll(server.cq, n), first):
                self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
                self.assertEqual(socket.ntohl(wc.imm_data), i)
                self.assertEqual(server.mr.read(slot, wc.wr_id * slot),
                                 bytes([i]) * slot)

        burst(0, count)
        take(2, 0)
        with self.assertRaises(PyverbsRDMAError) as ex:
            server.cq.resize(4)
        self.assertEqual(ex.exception.error_code, errno.EINVAL)
        server.cq.resize(128)
        self.assertGreaterEqual(server.cq.cqe, 128)
        take(count - 2, 2)
        self.assertTrue(wb.cq_is_quiet(server.cq), 'A completion came twice')
        burst(count, 4)
        take(4, count)

    def test_rd_post_send_qp_state_bad_flow(self):
        """
        Posting a send in RESET, INIT or RTR fails with EINVAL (both APIs)
        and sends nothing; the same send works once the QP is in RTS.
        """
        self.create_players(send_ops_flags=e.IBV_QP_EX_WITH_SEND)
        client, server = self.client, self.server
        qp = client.qps[0]
        qp.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
        attr = client.create_qp_attr()
        attr.sq_psn = client.psns[0]
        wb.post_recv(server, [wb.sge(server, 0, server.msg_size)], wr_id=1)
        for state, move in ((e.IBV_QPS_RESET, None), (e.IBV_QPS_INIT, qp.to_init),
                            (e.IBV_QPS_RTR, qp.to_rtr)):
            if move:
                move(attr)
            self.assertEqual(qp.qp_state, state)
            for new_send in (False, True):
                with self.subTest(state=state, new_send=new_send):
                    with self.assertRaises(PyverbsRDMAError) as ex:
                        wb.post_send(client,
                                     [wb.sge(client, 0, client.msg_size)],
                                     new_send=new_send, wr_id=2)
                    self.assertEqual(ex.exception.error_code, errno.EINVAL)
        qp.to_rts(attr)
        self.assertTrue(wb.cq_is_quiet(client.cq), 'A refused send completed')
        self.assertTrue(wb.cq_is_quiet(server.cq), 'A refused send arrived')
        payload = random.randbytes(client.msg_size)
        client.mr.write(payload, client.msg_size)
        wb.post_send(client, [wb.sge(client, 0, client.msg_size)], wr_id=3)
        wb.check_send_wcs(self, wb.poll(client.cq, 1), [3])
        wc, = wb.poll(server.cq, 1)
        self.assertEqual(wc.wr_id, 1)
        wb.check_recv_wc(self, wc, server, client, client.msg_size)
        self.assertEqual(server.mr.read(client.msg_size, 0), payload)

    def test_rd_post_recv_qp_state_bad_flow(self):
        """
        Posting a receive in RESET fails with EINVAL.
        """
        self.create_players()
        u.post_rq_state_bad_flow(self)

    def full_sq(self, new_send):
        self.create_players(send_ops_flags=e.IBV_QP_EX_WITH_SEND,
                            server_args={'wr_depth': 256})
        client, server = self.client, self.server
        attr, _ = client.qps[0].query(e.IBV_QP_CAP)
        depth = attr.cap.max_send_wr
        attr, _ = server.qps[0].query(e.IBV_QP_CAP)
        self.assertGreaterEqual(attr.cap.max_recv_wr, depth + 1)
        sgl = [wb.sge(client, 0, client.msg_size)]
        for i in range(depth + 1):
            wb.post_recv(server, [wb.sge(server, 0, server.msg_size)], wr_id=i)
        for i in range(depth):
            wb.post_send(client, sgl, new_send=new_send, wr_id=i)
        with self.assertRaises(PyverbsRDMAError) as ex:
            wb.post_send(client, sgl, new_send=new_send, wr_id=depth)
        self.assertEqual(ex.exception.error_code, errno.ENOMEM)
        wb.check_send_wcs(self, wb.poll(client.cq, depth), range(depth))
        for wc in wb.poll(server.cq, depth):
            wb.check_recv_wc(self, wc, server, client, client.msg_size)
        # Polled, the queue takes work again.
        wb.post_send(client, sgl, new_send=new_send, wr_id=depth)
        wb.check_send_wcs(self, wb.poll(client.cq, 1), [depth])
        wb.poll(server.cq, 1)

    def test_rd_full_sq_bad_flow(self):
        """
        Exactly max_send_wr sends fit the send queue: the next fails with
        ENOMEM until completions are polled (post_send()).
        """
        self.full_sq(new_send=False)

    def test_rd_full_sq_bad_flow_new_api(self):
        """
        The same with the ibv_wr_*() API: ibv_wr_complete() fails with
        ENOMEM.
        """
        self.full_sq(new_send=True)

    def test_rd_full_rq_bad_flow(self):
        """
        Posting more receives than max_recv_wr fails with ENOMEM.
        """
        self.create_players()
        u.full_rq_bad_flow(self)

    def test_rd_sq_larger_sgl_bad_flow(self):
        """
        A send with one SGE more than max_send_sge fails with EINVAL (both
        APIs) and sends nothing; max_send_sge SGEs work.
        """
        self.create_players(send_ops_flags=e.IBV_QP_EX_WITH_SEND,
                            max_send_sge=None)
        client, server = self.client, self.server
        attr, _ = client.qps[0].query(e.IBV_QP_CAP)
        max_sge = attr.cap.max_send_sge
        self.assertEqual(max_sge, client.dv_attr.max_sq_sge)
        sgl = [wb.sge(client, 8 * i, 8) for i in range(max_sge + 1)]
        wb.post_recv(server, [wb.sge(server, 0, server.msg_size)], wr_id=1)
        for new_send in (False, True):
            with self.subTest(new_send=new_send):
                with self.assertRaises(PyverbsRDMAError) as ex:
                    wb.post_send(client, sgl, new_send=new_send, wr_id=2)
                self.assertEqual(ex.exception.error_code, errno.EINVAL)
        self.assertTrue(wb.cq_is_quiet(client.cq), 'A refused send completed')
        self.assertTrue(wb.cq_is_quiet(server.cq), 'A refused send arrived')
        wb.post_send(client, sgl[:max_sge], wr_id=3)
        wb.check_send_wcs(self, wb.poll(client.cq, 1), [3])
        wc, = wb.poll(server.cq, 1)
        wb.check_recv_wc(self, wc, server, client, 8 * max_sge)

    def test_rd_rq_larger_sgl_bad_flow(self):
        """
        A receive with one SGE more than max_recv_sge fails with EINVAL.
        """
        self.create_players()
        u.create_rq_with_larger_sgl_bad_flow(self)

    def test_rd_destroyed_ah_bad_flow(self):
        """
        A send through a destroyed AH (pyverbs hands a NULL ibv_ah to the
        provider) fails with EINVAL (both APIs) and sends nothing; the QP
        keeps working.
        """
        self.create_players(send_ops_flags=e.IBV_QP_EX_WITH_SEND)
        client, server = self.client, self.server
        ah = client.create_ah()
        ah.close()
        sgl = [wb.sge(client, 0, client.msg_size)]
        wb.post_recv(server, [wb.sge(server, 0, server.msg_size)], wr_id=1)
        for new_send in (False, True):
            with self.subTest(new_send=new_send):
                with self.assertRaises(PyverbsRDMAError) as ex:
                    wb.post_send(client, sgl, new_send=new_send, wr_id=2, ah=ah)
                self.assertEqual(ex.exception.error_code, errno.EINVAL)
        self.assertTrue(wb.cq_is_quiet(client.cq), 'A refused send completed')
        self.assertTrue(wb.cq_is_quiet(server.cq), 'A refused send arrived')
        wb.post_send(client, sgl, wr_id=3)
        wb.check_send_wcs(self, wb.poll(client.cq, 1), [3])
        wc, = wb.poll(server.cq, 1)
        wb.check_recv_wc(self, wc, server, client, client.msg_size)

    def test_rd_foreign_pd_ah_bad_flow(self):
        """
        An AH of another PD names no destination the QP may use: the
        device completes that send with IBV_WC_LOC_QP_OP_ERR (vendor error
        LOC_QP_OP_ERR) and puts the QP in error, which flushes the next
        send; nothing arrives.
        """
        self.create_players()
        client, server = self.client, self.server
        other_pd = PD(client.ctx)
        bad_ah = client.create_ah(pd=other_pd)
        sgl = [wb.sge(client, 0, client.msg_size)]
        for i in range(2):
            wb.post_recv(server, [wb.sge(server, 0, server.msg_size)], wr_id=i)
        wb.post_send(client, sgl, wr_id=1, ah=bad_ah)
        wb.post_send(client, sgl, wr_id=2)
        bad, flushed = wb.poll(client.cq, 2)
        self.assertEqual(bad.wr_id, 1)
        self.assertEqual(bad.status, e.IBV_WC_LOC_QP_OP_ERR, wb.wc_str(bad))
        self.assertEqual(bad.vendor_err, WREN_CQE_LOC_QP_OP_ERR)
        self.assertEqual(flushed.wr_id, 2)
        self.assertEqual(flushed.status, e.IBV_WC_WR_FLUSH_ERR,
                         wb.wc_str(flushed))
        self.assertTrue(wb.cq_is_quiet(server.cq), 'A bad send arrived')

    def test_rd_oversize_message_bad_flow(self):
        """
        A message of max_rd_msg_size + 1 bytes is refused: post_send()
        fails with EINVAL, or the send completes with IBV_WC_LOC_LEN_ERR
        (vendor error LOC_LEN_ERR); nothing arrives.  The message is
        gathered from max_sq_sge SGEs over one MR whose pages all show the
        same few megabytes, so a limit of up to a few GiB costs no memory.
        """
        self.create_players(max_send_sge=None,
                            server_args={'msg_size': RD_MAX_TEST_MSG_SIZE})
        client, server = self.client, self.server
        limit, nsge = client.dv_attr.max_rd_msg_size, client.dv_attr.max_sq_sge
        chunk = -(-(limit + 1) // nsge)
        buf = wb.AliasedBuffer(chunk)
        self.addCleanup(buf.close)
        mr = MR(client.pd, chunk, e.IBV_ACCESS_LOCAL_WRITE, address=buf.addr)
        lengths = [chunk] * (nsge - 1)
        lengths.append(limit + 1 - sum(lengths))
        sgl = [SGE(buf.addr, length, mr.lkey) for length in lengths]
        # Big enough for the message unless the limit is above a few MiB.
        wb.post_recv(server, [wb.sge(server, 0, server.msg_size)], wr_id=1)
        try:
            wb.post_send(client, sgl, wr_id=2)
        except PyverbsRDMAError as ex:
            self.assertEqual(ex.error_code, errno.EINVAL)
            self.assertTrue(wb.cq_is_quiet(client.cq), 'A refused send completed')
        else:
            wc, = wb.poll(client.cq, 1)
            self.assertEqual(wc.wr_id, 2)
            self.assertEqual(wc.status, e.IBV_WC_LOC_LEN_ERR, wb.wc_str(wc))
            self.assertEqual(wc.vendor_err, WREN_CQE_LOC_LEN_ERR)
        self.assertTrue(wb.cq_is_quiet(server.cq), 'An oversize message arrived')
