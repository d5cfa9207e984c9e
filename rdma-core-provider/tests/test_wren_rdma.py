# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""
Tests of one-sided operations on Wren's reliable-datagram (RD) QPs:
RDMA WRITE, WRITE with immediate and READ, built with the ibv_wr_* API
and addressed like any RD work request (AH, remote QPN, Q_Key), and the
responder's memory protection.

Every violation must complete the request with IBV_WC_REM_ACCESS_ERR and
leave the responder as it was: memory unchanged, no completion there.
"""

import ctypes
import fcntl
import mmap
import os
import random
import socket
import struct

from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import SGE
import pyverbs.enums as e
from pyverbs.mr import MR, DmaBufMR
from pyverbs.pd import PD

from tests.wren_base import WrenRDTestCase, WrenRDResources, wren_e, \
    RD_QKEY, IMM_DATA, WREN_MAX_INLINE
import tests.wren_base as wb

REMOTE_ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | \
    e.IBV_ACCESS_REMOTE_READ
RDMA_OPS = e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_RDMA_WRITE | \
    e.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | e.IBV_QP_EX_WITH_RDMA_READ

# Sizes of the data tests: empty, one byte, around a page, several
# pages, a megabyte.
RDMA_SIZES = [0, 1, 4095, 4096, 4097, 65537, 1 << 20]
MR_SIZE = 2 << 20
PAGE = 4096


# <linux/udmabuf.h>: UDMABUF_CREATE = _IOW('u', 0x42, struct udmabuf_create)
UDMABUF_CREATE = 0x40187542
UDMABUF_FLAGS_CLOEXEC = 0x01


class UDmaBuf:
    """
    length bytes of memfd memory exported as a dma-buf by /dev/udmabuf,
    and mapped here too, so that the test sees what the device writes.
    """
    def __init__(self, length):
        self.length = length
        self.memfd = os.memfd_create('wren-udmabuf', os.MFD_ALLOW_SEALING)
        self.fd = None
        self.map = None
        try:
            os.ftruncate(self.memfd, length)
            fcntl.fcntl(self.memfd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
            dev = os.open('/dev/udmabuf', os.O_RDWR)
            try:
                req = bytearray(struct.pack('IIQQ', self.memfd,
                                            UDMABUF_FLAGS_CLOEXEC, 0, length))
                # A mutable argument: the ioctl's return value, the fd.
                self.fd = fcntl.ioctl(dev, UDMABUF_CREATE, req, True)
            finally:
                os.close(dev)
            self.map = mmap.mmap(self.memfd, length)
        except BaseException:
            self.close()
            raise

    def close(self):
        if self.map is not None:
            self.map.close()
            self.map = None
        for fd in (self.fd, self.memfd):
            if fd is not None:
                os.close(fd)
        self.fd = self.memfd = None


class WrenRDMAResources(WrenRDResources):
    """
    An RD player whose MR the peer may write and read, and whose QP
    builds one-sided work requests.
    """
    def __init__(self, *args, access=REMOTE_ACCESS, **kwargs):
        self.access = access
        super().__init__(*args, send_ops_flags=RDMA_OPS, mr_size=MR_SIZE,
                         max_inline_data=None, **kwargs)

    def create_mr(self):
        self.mr = MR(self.pd, self.mr_size, self.access)


def post_rdma(player, op, sgl, raddr, rkey, wr_id=0, imm_data=None,
              inline=False):
    """
    Post one one-sided work request to the peer's QP.
    :param op: IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM or
               IBV_WR_RDMA_READ
    :param sgl: local SGEs (READ: where the data goes)
    """
    qp = player.qps[0]
    qp.wr_start()
    qp.wr_id = wr_id
    qp.wr_flags = e.IBV_SEND_SIGNALED
    if op == e.IBV_WR_RDMA_WRITE:
        qp.wr_rdma_write(rkey, raddr)
    elif op == e.IBV_WR_RDMA_WRITE_WITH_IMM:
        qp.wr_rdma_write_imm(rkey, raddr, imm_data)
    else:
        qp.wr_rdma_read(rkey, raddr)
    qp.wr_set_ud_addr(player.ah, player.rqps_num[0], RD_QKEY)
    wb.wr_set_payload(qp, sgl, inline)
    qp.wr_complete()


class WrenRDMATest(WrenRDTestCase):
    """
    One-sided operations between two RD players on one device.
    """
    def setUp(self):
        super().setUp()
        self.create_players(WrenRDMAResources)

    def rdma(self, op, size, local_off=0, remote_off=0, rkey=None,
             imm_data=None, inline=False, expect=e.IBV_WC_SUCCESS):
        """
        One operation from the client to the server's MR; check the
        client's completion and return it.
        """
        client, server = self.client, self.server
        rkey = server.mr.rkey if rkey is None else rkey
        post_rdma(client, op, [wb.sge(client, local_off, size)],
                  server.mr.buf + remote_off, rkey, wr_id=size,
                  imm_data=imm_data, inline=inline)
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, expect, wb.wc_str(wc))
        self.assertEqual(wc.wr_id, size)
        if expect == e.IBV_WC_SUCCESS:
            opcode = e.IBV_WC_RDMA_READ if op == e.IBV_WR_RDMA_READ else \
                e.IBV_WC_RDMA_WRITE
            self.assertEqual(wc.opcode, opcode, wb.wc_str(wc))
            if op == e.IBV_WR_RDMA_READ:
                self.assertEqual(wc.byte_len, size, 'READ byte_len')
        return wc

    def write_and_check(self, size, local_off=0, remote_off=0, inline=False):
        data = random.randbytes(size)
        if size:
            self.client.mr.write(data, size, local_off)
        self.rdma(e.IBV_WR_RDMA_WRITE, size, local_off, remote_off,
                  inline=inline)
        self.assertEqual(self.server.mr.read(size, remote_off), data,
                         f'{size}-byte WRITE at {remote_off}: data differs')

    def read_and_check(self, size, local_off=0, remote_off=0):
        data = random.randbytes(size)
        if size:
            self.server.mr.write(data, size, remote_off)
        self.rdma(e.IBV_WR_RDMA_READ, size, local_off, remote_off)
        self.assertEqual(self.client.mr.read(size, local_off), data,
                         f'{size}-byte READ at {remote_off}: data differs')

    def test_rdma_caps(self):
        """
        The device reports one-sided operations and their limits: in
        wrendv_query_device() and in ibv_query_device().
        """
        dv = self.client.dv_attr
        for cap in (wren_e.WRENDV_DEVICE_CAP_RDMA_WRITE,
                    wren_e.WRENDV_DEVICE_CAP_RDMA_READ):
            self.assertTrue(dv.device_caps & cap, 'One-sided ops missing')
        self.assertGreaterEqual(dv.max_rdma_size, 1 << 30)
        self.assertEqual(dv.max_rdma_size, dv.max_rd_msg_size)
        attr = self.client.ctx.query_device()
        self.assertGreater(attr.max_qp_rd_atom, 0)
        self.assertEqual(attr.max_qp_init_rd_atom, attr.max_qp_rd_atom)
        self.assertGreaterEqual(attr.max_res_rd_atom, attr.max_qp_rd_atom)

    def test_rdma_write(self):
        """
        WRITEs of every size land whole and take nothing at the server.
        """
        for size in RDMA_SIZES:
            self.write_and_check(size, remote_off=PAGE - 3)
        self.assertTrue(wb.cq_is_quiet(self.server.cq),
                        'A WRITE completed at the responder')

    def test_rdma_write_inline(self):
        """
        An inline WRITE carries its bytes in the work request.
        """
        self.write_and_check(WREN_MAX_INLINE, remote_off=100, inline=True)

    def test_rdma_write_imm(self):
        """
        WRITE with immediate completes at the responder without a
        receive posted, with the immediate and the length.
        """
        client, server = self.client, self.server
        for size in (0, 5000):
            data = random.randbytes(size)
            if size:
                client.mr.write(data, size)
            self.rdma(e.IBV_WR_RDMA_WRITE_WITH_IMM, size, remote_off=64,
                      imm_data=IMM_DATA + size)
            wc, = wb.poll(server.cq, 1)
            self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
            self.assertEqual(wc.opcode, e.IBV_WC_RECV_RDMA_WITH_IMM)
            self.assertEqual(wc.byte_len, size)
            self.assertTrue(wc.wc_flags & e.IBV_WC_WITH_IMM)
            self.assertEqual(socket.ntohl(wc.imm_data), IMM_DATA + size)
            self.assertEqual(wc.src_qp, client.qps_num[0])
            self.assertEqual(server.mr.read(size, 64), data)

    def test_rdma_read(self):
        """
        READs of every size bring the server's bytes.
        """
        for size in RDMA_SIZES:
            self.read_and_check(size, local_off=7, remote_off=PAGE + 1)
        self.assertTrue(wb.cq_is_quiet(self.server.cq),
                        'A READ completed at the responder')

    def test_rdma_boundaries(self):
        """
        Operations ending on the MR's last byte succeed, across page
        boundaries and from misaligned addresses; one byte further is a
        remote access error.
        """
        self.write_and_check(100, remote_off=MR_SIZE - 100)
        self.read_and_check(100, remote_off=MR_SIZE - 100)
        self.write_and_check(3, local_off=PAGE - 1, remote_off=2 * PAGE - 2)
        self.read_and_check(PAGE + 3, local_off=1, remote_off=PAGE - 1)
        self.check_refused(e.IBV_WR_RDMA_WRITE, 101, remote_off=MR_SIZE - 100)
        self.check_refused(e.IBV_WR_RDMA_READ, 101, remote_off=MR_SIZE - 100)

    def check_refused(self, op, size, remote_off=0, rkey=None, mr=None):
        """
        The operation completes with a remote access error, the server's
        MR (or mr) is unchanged and no completion comes at the server.
        """
        server = self.server
        target = server.mr if mr is None else mr
        before = target.read(target.length, 0)
        self.client.mr.write(random.randbytes(size), size)
        if mr is not None:
            remote_off += mr.buf - server.mr.buf
        self.rdma(op, size, remote_off=remote_off,
                  rkey=target.rkey if rkey is None else rkey,
                  imm_data=IMM_DATA, expect=e.IBV_WC_REM_ACCESS_ERR)
        self.assertEqual(target.read(target.length, 0), before,
                         'A refused operation changed the responder')
        self.assertTrue(wb.cq_is_quiet(server.cq),
                        'A refused operation completed at the responder')

    def test_rdma_bad_key(self):
        """
        A key the responder does not know, for each operation.
        """
        bad = self.server.mr.rkey ^ 0x100
        for op in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_WRITE_WITH_IMM,
                   e.IBV_WR_RDMA_READ):
            self.check_refused(op, 16, rkey=bad)

    def test_rdma_missing_right(self):
        """
        An MR without remote write refuses WRITEs; without remote read,
        READs.
        """
        server = self.server
        ro = MR(server.pd, PAGE, e.IBV_ACCESS_REMOTE_READ)
        wo = MR(server.pd, PAGE, e.IBV_ACCESS_LOCAL_WRITE |
                e.IBV_ACCESS_REMOTE_WRITE)
        self.check_refused(e.IBV_WR_RDMA_WRITE, 16, mr=ro)
        self.check_refused(e.IBV_WR_RDMA_WRITE_WITH_IMM, 16, mr=ro)
        self.check_refused(e.IBV_WR_RDMA_READ, 16, mr=wo)

    def test_rdma_wrong_pd(self):
        """
        An MR of another PD than the responder QP's.
        """
        other = MR(PD(self.server.ctx), PAGE, REMOTE_ACCESS)
        self.check_refused(e.IBV_WR_RDMA_WRITE, 16, mr=other)
        self.check_refused(e.IBV_WR_RDMA_READ, 16, mr=other)

    def test_rdma_out_of_bounds(self):
        """
        Below the MR's start, across its end, far beyond it.
        """
        self.check_refused(e.IBV_WR_RDMA_WRITE, 16, remote_off=-1)
        self.check_refused(e.IBV_WR_RDMA_READ, 2, remote_off=MR_SIZE - 1)
        self.check_refused(e.IBV_WR_RDMA_WRITE, 1, remote_off=MR_SIZE)
        self.check_refused(e.IBV_WR_RDMA_READ, 1, remote_off=1 << 40)

    def test_rdma_deregistered(self):
        """
        The key of an MR deregistered since refuses everything.
        """
        server = self.server
        mr = MR(server.pd, PAGE, REMOTE_ACCESS)
        rkey, addr = mr.rkey, mr.buf
        mr.close()
        for op in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ):
            post_rdma(self.client, op, [wb.sge(self.client, 0, 16)], addr,
                      rkey)
            wc, = wb.poll(self.client.cq, 1)
            self.assertEqual(wc.status, e.IBV_WC_REM_ACCESS_ERR,
                             wb.wc_str(wc))
        self.assertTrue(wb.cq_is_quiet(server.cq))

    def test_rdma_read_inline_refused(self):
        """
        A READ has nowhere inline to put its data: the batch fails.
        """
        client = self.client
        qp = client.qps[0]
        qp.wr_start()
        qp.wr_rdma_read(self.server.mr.rkey, self.server.mr.buf)
        qp.wr_set_ud_addr(client.ah, client.rqps_num[0], RD_QKEY)
        qp.wr_set_inline_data(client.mr.buf, 8)
        with self.assertRaises(PyverbsRDMAError):
            qp.wr_complete()
        self.assertTrue(wb.cq_is_quiet(client.cq))

    def test_rdma_rereg(self):
        """
        Re-registering an MR without remote write changes it in place: the
        key stays, WRITEs through it are refused from then on, READs go on;
        with remote write again, WRITEs go on too.
        """
        server = self.server
        key = server.mr.rkey
        self.write_and_check(64)
        server.mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, server.pd, 0, 0,
                        e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)
        self.assertEqual(server.mr.rkey, key, 'rereg changed the key')
        self.check_refused(e.IBV_WR_RDMA_WRITE, 64)
        self.read_and_check(64)
        server.mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, server.pd, 0, 0,
                        REMOTE_ACCESS)
        self.assertEqual(server.mr.rkey, key, 'rereg changed the key')
        self.write_and_check(64)

    def test_rdma_dmabuf(self):
        """
        An MR over a dma-buf (udmabuf): WRITE into it and READ from it, with
        the bytes checked in the memory behind it; bounds still hold.
        """
        server = self.server
        buf = UDmaBuf(4 * PAGE)
        try:
            mr = DmaBufMR(server.pd, 4 * PAGE, REMOTE_ACCESS, dmabuf=buf.fd)
            data = random.randbytes(3 * PAGE + 5)
            self.client.mr.write(data, len(data))
            # A dma-buf MR's addresses start at 0 (its offset).
            post_rdma(self.client, e.IBV_WR_RDMA_WRITE,
                      [wb.sge(self.client, 0, len(data))], PAGE - 5,
                      mr.rkey)
            wc, = wb.poll(self.client.cq, 1)
            self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
            self.assertEqual(buf.map[PAGE - 5:4 * PAGE], data)
            back = random.randbytes(PAGE)
            buf.map[0:PAGE] = back
            post_rdma(self.client, e.IBV_WR_RDMA_READ,
                      [wb.sge(self.client, PAGE, PAGE)], 0, mr.rkey)
            wc, = wb.poll(self.client.cq, 1)
            self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
            self.assertEqual(self.client.mr.read(PAGE, PAGE), back)
            post_rdma(self.client, e.IBV_WR_RDMA_WRITE,
                      [wb.sge(self.client, 0, 2)], 4 * PAGE - 1, mr.rkey)
            wc, = wb.poll(self.client.cq, 1)
            self.assertEqual(wc.status, e.IBV_WC_REM_ACCESS_ERR,
                             wb.wc_str(wc))
            mr.close()
        finally:
            buf.close()

    def test_rdma_three_level_mr(self):
        """
        An MR of 2 GiB of 4 KiB pages needs a three-level page list: a
        WRITE near its end and a READ through another alias of the same
        bytes.  Its pages all show the same 2 MiB again and again, so it
        costs no memory.
        """
        server, client = self.server, self.client
        length = (2 << 30) + PAGE
        buf = wb.AliasedBuffer(length)
        self.addCleanup(buf.close)
        mr = MR(server.pd, length, REMOTE_ACCESS, address=buf.addr)
        self.addCleanup(mr.close)
        data = random.randbytes(PAGE + 100)
        client.mr.write(data, len(data))
        far = length - len(data)
        post_rdma(client, e.IBV_WR_RDMA_WRITE, [wb.sge(client, 0, len(data))],
                  buf.addr + far, mr.rkey)
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        # The same bytes, 2 MiB times k lower: another branch of the tree.
        near = far % (2 << 20) + (4 << 20)
        post_rdma(client, e.IBV_WR_RDMA_READ,
                  [wb.sge(client, 2 * PAGE, len(data))], buf.addr + near,
                  mr.rkey)
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(client.mr.read(len(data), 2 * PAGE), data)

    def test_rdma_huge_pages(self):
        """
        An MR over 2 MiB huge pages, written and read across the boundary
        between two of them.
        """
        need = 2
        with open('/proc/sys/vm/nr_hugepages', 'r+') as f:
            if int(f.read()) < need:
                f.seek(0)
                f.write(str(need))
        server, client = self.server, self.client
        mr = MR(server.pd, 4 << 20, REMOTE_ACCESS | e.IBV_ACCESS_HUGETLB)
        self.addCleanup(mr.close)
        data = random.randbytes(2 * PAGE)
        client.mr.write(data, len(data))
        at = (2 << 20) - PAGE
        post_rdma(client, e.IBV_WR_RDMA_WRITE, [wb.sge(client, 0, len(data))],
                  mr.buf + at, mr.rkey)
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(mr.read(len(data), at), data)
        post_rdma(client, e.IBV_WR_RDMA_READ,
                  [wb.sge(client, 4 * PAGE, len(data))], mr.buf + at, mr.rkey)
        wc, = wb.poll(client.cq, 1)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(client.mr.read(len(data), 4 * PAGE), data)

    def test_rdma_responder_without_ah(self):
        """
        The responder holds no AH for the requester: WRITE, WRITE with
        immediate and READ still work, the READ's data coming back to the
        address the request came from.
        """
        self.server.ah.close()
        self.write_and_check(5000)
        self.read_and_check(5000)
        self.rdma(e.IBV_WR_RDMA_WRITE_WITH_IMM, 10, imm_data=IMM_DATA)
        wc, = wb.poll(self.server.cq, 1)
        self.assertEqual(wc.opcode, e.IBV_WC_RECV_RDMA_WITH_IMM)

    def test_rdma_max_size(self):
        """
        One WRITE of max_rdma_size bytes (2 GiB), cut into packets by the
        device: every byte lands.  Both sides are MRs whose pages show the
        same 2 MiB again and again, so the gigabyte costs no memory: the
        destination's 2 MiB must end as the source's.
        """
        client, server = self.client, self.server
        size = client.dv_attr.max_rdma_size
        src = wb.AliasedBuffer(size)
        self.addCleanup(src.close)
        dst = wb.AliasedBuffer(size)
        self.addCleanup(dst.close)
        smr = MR(client.pd, size, e.IBV_ACCESS_LOCAL_WRITE, address=src.addr)
        self.addCleanup(smr.close)
        dmr = MR(server.pd, size, REMOTE_ACCESS, address=dst.addr)
        self.addCleanup(dmr.close)
        pattern = random.randbytes(2 << 20)
        ctypes.memmove(src.addr, pattern, len(pattern))
        post_rdma(client, e.IBV_WR_RDMA_WRITE,
                  [SGE(src.addr, size, smr.lkey)], dst.addr, dmr.rkey)
        wc, = wb.poll(client.cq, 1, timeout=600)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, wb.wc_str(wc))
        self.assertEqual(ctypes.string_at(dst.addr, len(pattern)), pattern)

    def test_rdma_after_errors(self):
        """
        Refusals do not break the QPs: traffic goes on afterwards.
        """
        self.check_refused(e.IBV_WR_RDMA_WRITE, 8,
                           rkey=self.server.mr.rkey ^ 0x100)
        self.write_and_check(4096)
        self.read_and_check(4096)
