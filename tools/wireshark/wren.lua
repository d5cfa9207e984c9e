-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- Wren wire protocol, version 1: a dissector for Wireshark and tshark.
--
-- The wire format is include/linux/wren/wren_wire.h (the header wins over
-- Documentation/wire-protocol.rst where they disagree); every offset,
-- length, enum and flag below is that header's.  The enum tables keep the
-- header's order and the header's names, one "[value] = name, -- C name"
-- line each, and every constant names its C constant the same way, so
-- that tools/wireshark/tests/dissector_test.py checks them against the
-- header mechanically instead of by eye.
--
--   tshark -X lua_script:tools/wireshark/wren.lua -r capture.pcap
--
-- or installed by make install in Wireshark's global Lua plugin folder.
-- Documentation/dissector.rst lists the fields.

-- Wireshark loads the installed copy from its plugin folder and then any
-- -X lua_script: one; a second Proto("wren") would be an error, so the
-- second copy steps aside (tools/wireshark/tests/dissector_test.py makes
-- sure an installed copy is the tree's before it tests).
if rawget(_G, "wren_dissector_loaded") then
	return
end
wren_dissector_loaded = true

local wren = Proto("wren", "Wren RDMA transport")

-- The UDP destination port of every Wren packet: WREN_WIRE_UDP_PORT.
local WREN_UDP_PORT = 0x5752
local WREN_VERSION = 1				-- WREN_WIRE_VERSION
local CTX_NONE = 0xffffffff			-- WREN_WIRE_CTX_NONE
local ENTROPY_MASK = 0x3fff			-- WREN_WIRE_ENTROPY_MASK
local ACK_MAX_WORDS = 8				-- WREN_WIRE_ACK_MAX_WORDS
local MAX_MSG_LEN = 0x80000000			-- WREN_WIRE_MAX_MSG_LEN

-- The size of each structure, as the header's static_asserts fix them.
local HDR_LEN = 32				-- sizeof(struct wren_wire_hdr)
local DATA_LEN = 32				-- sizeof(struct wren_wire_data)
local RDMA_LEN = 16				-- sizeof(struct wren_wire_rdma)
local ACK_LEN = 8				-- sizeof(struct wren_wire_ack)
local NACK_LEN = 8				-- sizeof(struct wren_wire_nack)
local CONNECT_LEN = 8				-- sizeof(struct wren_wire_connect)
local GRANT_LEN = 8				-- sizeof(struct wren_wire_grant)
local ATOMIC_LEN = 16				-- WREN_WIRE_ATOMIC_LEN

-- enum wren_wire_type
local types = {
	[1] = "DATA",		-- WREN_WIRE_DATA
	[2] = "ACK",		-- WREN_WIRE_ACK
	[3] = "NACK",		-- WREN_WIRE_NACK
	[4] = "CONNECT",	-- WREN_WIRE_CONNECT
	[5] = "CONNECT_ACK",	-- WREN_WIRE_CONNECT_ACK
	[6] = "CLOSE",		-- WREN_WIRE_CLOSE
	[7] = "GRANT",		-- WREN_WIRE_GRANT
	[8] = "UD",		-- WREN_WIRE_UD
}
local T_DATA = 1			-- WREN_WIRE_DATA
local T_ACK = 2				-- WREN_WIRE_ACK
local T_NACK = 3			-- WREN_WIRE_NACK
local T_CONNECT = 4			-- WREN_WIRE_CONNECT
local T_CONNECT_ACK = 5			-- WREN_WIRE_CONNECT_ACK
local T_CLOSE = 6			-- WREN_WIRE_CLOSE
local T_GRANT = 7			-- WREN_WIRE_GRANT
local T_UD = 8				-- WREN_WIRE_UD

-- enum wren_wire_opcode
local opcodes = {
	[1] = "SEND",		-- WREN_WIRE_OP_SEND
	[2] = "SEND_IMM",	-- WREN_WIRE_OP_SEND_IMM
	[3] = "WRITE",		-- WREN_WIRE_OP_WRITE
	[4] = "WRITE_IMM",	-- WREN_WIRE_OP_WRITE_IMM
	[5] = "READ_REQ",	-- WREN_WIRE_OP_READ_REQ
	[6] = "READ_RESP",	-- WREN_WIRE_OP_READ_RESP
	[7] = "CMP_SWP",	-- WREN_WIRE_OP_CMP_SWP
	[8] = "FETCH_ADD",	-- WREN_WIRE_OP_FETCH_ADD
	[9] = "SEND_INV",	-- WREN_WIRE_OP_SEND_INV
}
local OP_WRITE = 3			-- WREN_WIRE_OP_WRITE
local OP_WRITE_IMM = 4			-- WREN_WIRE_OP_WRITE_IMM
local OP_READ_REQ = 5			-- WREN_WIRE_OP_READ_REQ
local OP_READ_RESP = 6			-- WREN_WIRE_OP_READ_RESP
local OP_CMP_SWP = 7			-- WREN_WIRE_OP_CMP_SWP
local OP_FETCH_ADD = 8			-- WREN_WIRE_OP_FETCH_ADD

-- wren_wire_op_has_rdma(): the opcodes whose DATA carries wren_wire_rdma.
local has_rdma = {
	[OP_WRITE] = true, [OP_WRITE_IMM] = true, [OP_READ_REQ] = true,
	[OP_CMP_SWP] = true, [OP_FETCH_ADD] = true,
}

-- enum wren_wire_nack_reason
local nack_reasons = {
	[1] = "TRIMMED",	-- WREN_WIRE_NACK_TRIMMED
	[2] = "STATUS",		-- WREN_WIRE_NACK_STATUS
	[3] = "UNKNOWN_CTX",	-- WREN_WIRE_NACK_UNKNOWN_CTX
}
local NACK_STATUS = 2				-- WREN_WIRE_NACK_STATUS

-- enum wren_wire_status
local statuses = {
	[1] = "BAD_DEST_QP",	-- WREN_WIRE_ST_BAD_DEST_QP
	[2] = "RNR",		-- WREN_WIRE_ST_RNR
	[3] = "REMOTE_OP",	-- WREN_WIRE_ST_REMOTE_OP
	[4] = "TOO_LONG",	-- WREN_WIRE_ST_TOO_LONG
	[5] = "REMOTE_ACCESS",	-- WREN_WIRE_ST_REMOTE_ACCESS
}

-- enum wren_wire_mode
local modes = {
	[1] = "HANDSHAKE",	-- WREN_WIRE_MODE_HANDSHAKE
	[2] = "OPTIMISTIC",	-- WREN_WIRE_MODE_OPTIMISTIC
}

-- wren_wire_hdr.flags
local F_ACK_REQ = 0x01				-- WREN_WIRE_F_ACK_REQ
local F_SYN = 0x02				-- WREN_WIRE_F_SYN
local F_RETX = 0x04				-- WREN_WIRE_F_RETX
local F_TRIMMED = 0x08				-- WREN_WIRE_F_TRIMMED
-- wren_wire_data.msg_flags
local MSG_ORDERED = 0x01			-- WREN_WIRE_MSG_ORDERED
local MSG_GRANT_REQ = 0x02			-- WREN_WIRE_MSG_GRANT_REQ
local MSG_SOLICITED = 0x04			-- WREN_WIRE_MSG_SOLICITED
local MSG_FAILED = 0x08				-- WREN_WIRE_MSG_FAILED
local MSG_CONNECTED = 0x10			-- WREN_WIRE_MSG_CONNECTED
local QPN_MASK = 0x00ffffff			-- WREN_WIRE_QPN_MASK
local ECN_CE = 0x03				-- WREN_WIRE_ECN_CE

local ecn_names = { [0] = "Not-ECT", [1] = "ECT(1)", [2] = "ECT(0)",
	[3] = "CE" }

local function ctx_name(v)
	return v == CTX_NONE and "CTX_NONE" or tostring(v)
end

local pf = {
	-- struct wren_wire_hdr
	version = ProtoField.uint8("wren.version", "Version", base.DEC, nil,
		0xf0),
	type = ProtoField.uint8("wren.type", "Type", base.DEC, types, 0x0f),
	flags = ProtoField.uint8("wren.flags", "Flags", base.HEX),
	f_ack_req = ProtoField.bool("wren.flags.ack_req", "ACK_REQ", 8, nil,
		F_ACK_REQ, "Acknowledge without delay"),
	f_syn = ProtoField.bool("wren.flags.syn", "SYN", 8, nil, F_SYN,
		"May open the context (optimistic mode)"),
	f_retx = ProtoField.bool("wren.flags.retx", "RETX", 8, nil, F_RETX,
		"A retransmission"),
	f_trimmed = ProtoField.bool("wren.flags.trimmed", "TRIMMED", 8, nil,
		F_TRIMMED, "Payload cut by a switch"),
	subflow = ProtoField.uint8("wren.subflow", "Sub-flow", base.DEC, nil,
		0x0f),
	rsvd = ProtoField.bytes("wren.rsvd", "Reserved"),
	src_ctx = ProtoField.uint32("wren.src_ctx", "Source context",
		base.DEC),
	dst_ctx = ProtoField.uint32("wren.dst_ctx", "Destination context",
		base.DEC),
	epoch = ProtoField.uint32("wren.epoch", "Epoch", base.HEX),
	psn = ProtoField.uint32("wren.psn", "PSN", base.DEC),
	bsn = ProtoField.uint32("wren.bsn", "Base sequence number",
		base.DEC),
	ts = ProtoField.uint32("wren.ts", "Timestamp (ns mod 2^32)",
		base.DEC),
	mbase = ProtoField.uint32("wren.mbase", "Message base", base.DEC),
	entropy = ProtoField.uint16("wren.entropy", "Path entropy",
		base.HEX),
	ecn = ProtoField.uint8("wren.ecn", "ECN", base.DEC, ecn_names),
	ce = ProtoField.bool("wren.ce", "Congestion experienced"),

	-- struct wren_wire_data (DATA and UD)
	msn = ProtoField.uint32("wren.msn", "MSN", base.DEC),
	msg_len = ProtoField.uint32("wren.msg_len", "Message length",
		base.DEC),
	offset = ProtoField.uint32("wren.offset", "Offset", base.DEC),
	opcode = ProtoField.uint8("wren.opcode", "Opcode", base.DEC, opcodes),
	msg_flags = ProtoField.uint8("wren.msg_flags", "Message flags",
		base.HEX),
	m_ordered = ProtoField.bool("wren.msg_flags.ordered", "ORDERED", 8,
		nil, MSG_ORDERED, "Deliver in MSN order"),
	m_grant_req = ProtoField.bool("wren.msg_flags.grant_req",
		"GRANT_REQ", 8, nil, MSG_GRANT_REQ, "Asks for grants"),
	m_solicited = ProtoField.bool("wren.msg_flags.solicited",
		"SOLICITED", 8, nil, MSG_SOLICITED),
	m_failed = ProtoField.bool("wren.msg_flags.failed", "FAILED", 8, nil,
		MSG_FAILED, "READ_RESP: the read failed"),
	m_connected = ProtoField.bool("wren.msg_flags.connected",
		"CONNECTED", 8, nil, MSG_CONNECTED, "Of an RC QP's stream"),
	rsn = ProtoField.uint16("wren.rsn", "Receive sequence number",
		base.DEC),
	dst_qpn = ProtoField.uint32("wren.dst_qpn", "Destination QP",
		base.DEC, nil, QPN_MASK),
	src_qpn = ProtoField.uint32("wren.src_qpn", "Source QP", base.DEC,
		nil, QPN_MASK),
	qkey = ProtoField.uint32("wren.qkey", "Q_Key", base.HEX),
	stream_psn = ProtoField.uint32("wren.stream_psn", "QP stream PSN",
		base.DEC, nil, QPN_MASK),
	imm = ProtoField.uint32("wren.imm", "Immediate / tag / key",
		base.HEX),
	payload = ProtoField.bytes("wren.payload", "Payload"),
	payload_len = ProtoField.uint32("wren.payload_len", "Payload length",
		base.DEC),

	-- struct wren_wire_rdma
	raddr = ProtoField.uint64("wren.rdma.addr", "Remote address",
		base.HEX),
	rkey = ProtoField.uint32("wren.rdma.rkey", "Remote key", base.HEX),
	rlen = ProtoField.uint32("wren.rdma.length", "Length", base.DEC),
	-- An atomic's payload: two big-endian operands.
	atomic_op1 = ProtoField.uint64("wren.atomic.compare_add",
		"Compare / add operand", base.HEX),
	atomic_op2 = ProtoField.uint64("wren.atomic.swap", "Swap operand",
		base.HEX),

	-- struct wren_wire_ack
	hold_ns = ProtoField.uint32("wren.ack.hold_ns", "Hold time (ns)",
		base.DEC),
	ce_count = ProtoField.uint16("wren.ack.ce_count", "CE count",
		base.DEC),
	bitmap_words = ProtoField.uint8("wren.ack.bitmap_words",
		"Bitmap words", base.DEC),
	bitmap = ProtoField.uint64("wren.ack.bitmap", "Bitmap word",
		base.HEX),
	sack_psn = ProtoField.uint32("wren.ack.sack_psn",
		"Selectively acknowledged PSN", base.DEC),
	sack_count = ProtoField.uint32("wren.ack.sack_count",
		"PSNs selectively acknowledged", base.DEC),

	-- struct wren_wire_nack
	nack_reason = ProtoField.uint8("wren.nack.reason", "Reason", base.DEC,
		nack_reasons),
	nack_status = ProtoField.uint8("wren.nack.status", "Status", base.DEC,
		statuses),
	nack_msn = ProtoField.uint32("wren.nack.msn", "MSN", base.DEC),

	-- struct wren_wire_connect
	mode = ProtoField.uint8("wren.connect.mode", "Mode", base.DEC, modes),
	window = ProtoField.uint32("wren.connect.window", "Window (packets)",
		base.DEC),

	-- struct wren_wire_grant
	grant_msn = ProtoField.uint32("wren.grant.msn", "MSN", base.DEC),
	granted = ProtoField.uint32("wren.grant.granted", "Granted offset",
		base.DEC),

	-- Analysis: what the dissector works out across packets.
	a_retx = ProtoField.bool("wren.analysis.retransmission",
		"Retransmission"),
	a_dup = ProtoField.bool("wren.analysis.duplicate",
		"Duplicate (same PSN again without RETX)"),
	a_first = ProtoField.framenum("wren.analysis.first_frame",
		"First sent in frame", base.NONE),
	a_data = ProtoField.framenum("wren.analysis.data_frame",
		"Answers the DATA of frame", base.NONE),
	a_rtt = ProtoField.double("wren.analysis.rtt_us",
		"Round trip in the capture (us)"),
}

local ef = {
	malformed = ProtoExpert.new("wren.malformed",
		"Malformed Wren packet", expert.group.MALFORMED,
		expert.severity.ERROR),
	version = ProtoExpert.new("wren.bad_version", "Unknown Wren version",
		expert.group.MALFORMED, expert.severity.ERROR),
	unknown = ProtoExpert.new("wren.bad_value", "Value out of range",
		expert.group.MALFORMED, expert.severity.ERROR),
	rsvd = ProtoExpert.new("wren.rsvd_nonzero",
		"Reserved field not zero", expert.group.PROTOCOL,
		expert.severity.NOTE),
	retx = ProtoExpert.new("wren.retransmission.expert",
		"Retransmission", expert.group.SEQUENCE, expert.severity.NOTE),
	dup = ProtoExpert.new("wren.duplicate.expert",
		"Duplicate PSN without RETX (duplicated in the network)",
		expert.group.SEQUENCE, expert.severity.NOTE),
	trimmed = ProtoExpert.new("wren.trimmed.expert",
		"Payload trimmed by a switch", expert.group.SEQUENCE,
		expert.severity.WARN),
	nack = ProtoExpert.new("wren.nack.expert", "NACK",
		expert.group.SEQUENCE, expert.severity.WARN),
	ce = ProtoExpert.new("wren.ce.expert", "ECN congestion experienced",
		expert.group.SEQUENCE, expert.severity.NOTE),
}

local fields = {}
for _, f in pairs(pf) do fields[#fields + 1] = f end
wren.fields = fields
wren.experts = { ef.malformed, ef.version, ef.unknown, ef.rsvd, ef.retx,
	ef.dup, ef.trimmed, ef.nack, ef.ce }

-- The ECN bits come from the IPv4 header before ours.
local ip_dsfield_ecn = Field.new("ip.dsfield.ecn")

-- Sequence analysis.  Every DATA packet takes the next PSN of its
-- context's incarnation and a retransmission keeps it and sets RETX, so
-- RETX alone marks a retransmission; remembering each (source, context,
-- epoch, PSN) as well lets a copy without RETX (the network duplicated
-- it) be told apart and points both back at the first transmission, as
-- tcp.analysis.retransmission does.  Results are kept per frame number
-- because Wireshark dissects a frame again when it is clicked, and the
-- state must then not change.
--
-- An ACK or NACK echoes the PSN and ts of the DATA packet that caused it,
-- and names the initiator's context in dst_ctx: with the initiator's
-- address that is the DATA's key plus its ts, which tells the
-- transmissions of one PSN apart, so the answer points at the very
-- transmission it answers and the capture gives the round trip there.
local first_seen = {}	-- "initiator/ctx/epoch/psn" -> frame number
local sent = {}		-- "initiator/ctx/epoch/psn/ts" -> { frame, time }
local analysis = {}	-- frame number -> { first, dup, data, rtt }

function wren.init()
	first_seen = {}
	sent = {}
	analysis = {}
end

local function analyse_data(pinfo, ctx, epoch, psn, ts, retx)
	local a = analysis[pinfo.number]

	if not a then
		local key = tostring(pinfo.src) .. "/" .. ctx .. "/" ..
			epoch .. "/" .. psn
		local first = first_seen[key]

		a = {}
		if first and first ~= pinfo.number then
			a.first = first
			a.dup = not retx
		else
			first_seen[key] = pinfo.number
		end
		sent[key .. "/" .. ts] = sent[key .. "/" .. ts] or
			{ pinfo.number, pinfo.rel_ts }
		analysis[pinfo.number] = a
	end
	return a
end

local function analyse_answer(pinfo, ctx, epoch, psn, ts)
	local a = analysis[pinfo.number]

	if not a then
		local d = sent[tostring(pinfo.dst) .. "/" .. ctx .. "/" ..
			epoch .. "/" .. psn .. "/" .. ts]

		a = {}
		if d then
			a.data = d[1]
			-- rel_ts, being small, keeps the nanoseconds that a
			-- double holding the epoch time would round off.
			a.rtt = math.floor((pinfo.rel_ts - d[2]) * 1e9 + 0.5) / 1e3
		end
		analysis[pinfo.number] = a
	end
	return a
end

-- Flag a reserved field that is not zero: a note, not an error, since
-- the receiver ignores it.
local function add_rsvd(tree, range)
	local item = tree:add(pf.rsvd, range)

	for i = 0, range:len() - 1 do
		if range:range(i, 1):uint() ~= 0 then
			item:add_proto_expert_info(ef.rsvd)
			break
		end
	end
end

-- What was wrong with the packet being dissected, for its info column,
-- which is written last.
local problems = {}

local function malformed(tree, pinfo, msg)
	tree:add_proto_expert_info(ef.malformed, msg)
	problems[#problems + 1] = msg
	return false
end

-- A field holds a value the header does not define.
local function bad_value(item, msg)
	item:add_proto_expert_info(ef.unknown, msg)
	problems[#problems + 1] = msg
	return false
end

local function check_enum(item, tbl, v, what)
	if not tbl[v] then
		return bad_value(item, "unknown " .. what .. " " .. v)
	end
	return true
end

-- struct wren_wire_data (+ wren_wire_rdma) and the payload, of a DATA or
-- UD packet whose UDP payload is @buf; the info column's text.
local function dissect_data(buf, pinfo, tree, wtype, flags)
	local len = buf:len()
	local t = tree:add(wren, buf(HDR_LEN, DATA_LEN), "Message header")
	local opcode = buf(44, 1):uint()
	local mflags = buf(45, 1):uint()
	local msn, msg_len, off = buf(32, 4):uint(), buf(36, 4):uint(),
		buf(40, 4):uint()
	local o = HDR_LEN + DATA_LEN
	local ok = true

	t:set_text("Message header")
	t:add(pf.msn, buf(32, 4))
	t:add(pf.msg_len, buf(36, 4))
	t:add(pf.offset, buf(40, 4))
	ok = check_enum(t:add(pf.opcode, buf(44, 1)), opcodes, opcode,
		"opcode") and ok
	local mf = t:add(pf.msg_flags, buf(45, 1))
	mf:add(pf.m_ordered, buf(45, 1))
	mf:add(pf.m_grant_req, buf(45, 1))
	mf:add(pf.m_solicited, buf(45, 1))
	mf:add(pf.m_failed, buf(45, 1))
	mf:add(pf.m_connected, buf(45, 1))
	t:add(pf.rsn, buf(46, 2))
	t:add(pf.dst_qpn, buf(48, 4))
	t:add(pf.src_qpn, buf(52, 4))
	if bit.band(mflags, MSG_CONNECTED) ~= 0 then
		-- With CONNECTED the Q_Key field carries the stream PSN.
		t:add(pf.stream_psn, buf(56, 4))
	else
		t:add(pf.qkey, buf(56, 4))
	end
	t:add(pf.imm, buf(60, 4))
	if buf(48, 1):uint() ~= 0 or buf(52, 1):uint() ~= 0 then
		t:add_proto_expert_info(ef.rsvd, "QPN bits [31:24] not zero")
	end

	-- A trimming switch keeps the first WREN_WIRE_DATA_HDRS_LEN bytes of
	-- the frame, so a trimmed one-sided operation has lost its
	-- wren_wire_rdma along with the payload.
	local trimmed = bit.band(flags, F_TRIMMED) ~= 0
	if wtype == T_DATA and has_rdma[opcode] and
	   not (trimmed and len == o) then
		if len < o + RDMA_LEN then
			return malformed(tree, pinfo,
				"too short for its RDMA header"), ""
		end
		local r = tree:add(wren, buf(o, RDMA_LEN), "RDMA header")
		r:set_text("RDMA header")
		r:add(pf.raddr, buf(o, 8))
		r:add(pf.rkey, buf(o + 8, 4))
		r:add(pf.rlen, buf(o + 12, 4))
		o = o + RDMA_LEN
	end

	local plen = len - o
	tree:add(pf.payload_len, plen):set_generated()
	if plen > 0 then
		local p = tree:add(pf.payload, buf(o, plen))
		if (opcode == OP_CMP_SWP or opcode == OP_FETCH_ADD) and
		   off == 0 and plen == ATOMIC_LEN then
			p:add(pf.atomic_op1, buf(o, 8))
			p:add(pf.atomic_op2, buf(o + 8, 8))
		end
	end
	-- The length rules every receiver checks (wire-protocol.rst,
	-- "Validation") that one packet can show.
	if msg_len > MAX_MSG_LEN then
		ok = malformed(t, pinfo, "msg_len beyond 2^31")
	elseif off + plen > msg_len then
		ok = malformed(t, pinfo, "payload beyond msg_len")
	elseif opcode == OP_READ_REQ and msg_len ~= 0 then
		ok = malformed(t, pinfo, "READ_REQ with a payload")
	elseif bit.band(mflags, MSG_FAILED) ~= 0 and
	       (opcode ~= OP_READ_RESP or msg_len ~= 0) then
		ok = malformed(t, pinfo, "FAILED on other than an empty READ_RESP")
	elseif bit.band(mflags, MSG_GRANT_REQ) ~= 0 and
	       (off ~= 0 or plen ~= 0) then
		ok = malformed(t, pinfo, "GRANT_REQ with an offset or payload")
	end

	local info = string.format(" msn %d %s off %d len %d", msn,
		opcodes[opcode] or ("op " .. opcode), off, plen)
	if bit.band(mflags, MSG_GRANT_REQ) ~= 0 then
		info = info .. " GRANT_REQ"
	end
	if bit.band(mflags, MSG_FAILED) ~= 0 then
		info = info .. " FAILED"
	end
	return ok, info
end

local function dissect_ack(buf, pinfo, tree)
	local t = tree:add(wren, buf(HDR_LEN, ACK_LEN), "Acknowledgement")
	local words = buf(38, 1):uint()
	local bsn = buf(20, 4):uint()
	local n = 0

	t:set_text("Acknowledgement")
	t:add(pf.hold_ns, buf(32, 4))
	local ce = buf(36, 2):uint()
	local ci = t:add(pf.ce_count, buf(36, 2))
	if ce > 0 then
		ci:add_proto_expert_info(ef.ce, ce ..
			" DATA packets marked CE since the previous ACK")
	end
	local wi = t:add(pf.bitmap_words, buf(38, 1))
	add_rsvd(t, buf(39, 1))
	if words > ACK_MAX_WORDS then
		return bad_value(wi, "more than " .. ACK_MAX_WORDS ..
			" bitmap words"), ""
	end
	if buf:len() ~= HDR_LEN + ACK_LEN + 8 * words then
		return malformed(tree, pinfo, string.format(
			"ACK of %d bitmap words is %d bytes, not %d", words,
			buf:len(), HDR_LEN + ACK_LEN + 8 * words)), ""
	end
	for w = 0, words - 1 do
		local r = buf(HDR_LEN + ACK_LEN + 8 * w, 8)
		local bi = t:add(pf.bitmap, r)
		-- The word as two halves: Lua 5.2 numbers hold 32 bits
		-- exactly, and bit.band works on 32.
		local halves = { r:range(4, 4):uint(), r:range(0, 4):uint() }

		bi:append_text(string.format(" (PSNs %d-%d)",
			(bsn + 1 + 64 * w) % 2^32, (bsn + 64 + 64 * w) % 2^32))
		-- Bit i of word w counts from the least significant: PSN
		-- bsn + 1 + 64 w + i (wren_wire.h, struct wren_wire_ack).
		for i = 0, 63 do
			local half = halves[math.floor(i / 32) + 1]

			if bit.band(half, bit.lshift(1, i % 32)) ~= 0 then
				bi:add(pf.sack_psn, r,
					(bsn + 1 + 64 * w + i) % 2^32)
					:set_generated()
				n = n + 1
			end
		end
	end
	t:add(pf.sack_count, n):set_generated()
	return true, string.format(" bsn %d words %d sacked %d", bsn, words,
		n)
end

local function dissect_nack(buf, pinfo, tree)
	local t = tree:add(wren, buf(HDR_LEN, NACK_LEN), "Negative ack")
	local reason, status = buf(32, 1):uint(), buf(33, 1):uint()
	local ok = true

	t:set_text("Negative acknowledgement")
	local ri = t:add(pf.nack_reason, buf(32, 1))
	ok = check_enum(ri, nack_reasons, reason, "NACK reason")
	local si = t:add(pf.nack_status, buf(33, 1))
	if reason == NACK_STATUS then
		ok = check_enum(si, statuses, status, "status") and ok
	end
	add_rsvd(t, buf(34, 2))
	t:add(pf.nack_msn, buf(36, 4))
	ri:add_proto_expert_info(ef.nack, "NACK " ..
		(nack_reasons[reason] or reason))
	local info = " " .. (nack_reasons[reason] or ("reason " .. reason))
	if reason == NACK_STATUS then
		info = info .. " " .. (statuses[status] or status) .. " msn " ..
			buf(36, 4):uint()
	end
	return ok, info
end

local function dissect_connect(buf, pinfo, tree)
	local t = tree:add(wren, buf(HDR_LEN, CONNECT_LEN), "Connect")
	local mode = buf(32, 1):uint()

	t:set_text("Connect")
	local ok = check_enum(t:add(pf.mode, buf(32, 1)), modes, mode, "mode")
	add_rsvd(t, buf(33, 3))
	local wi = t:add(pf.window, buf(36, 4))
	if buf(36, 4):uint() == 0 then
		ok = bad_value(wi, "zero window")
	end
	return ok, string.format(" %s window %d", modes[mode] or mode,
		buf(36, 4):uint())
end

local function dissect_grant(buf, pinfo, tree)
	local t = tree:add(wren, buf(HDR_LEN, GRANT_LEN), "Grant")

	t:set_text("Grant")
	t:add(pf.grant_msn, buf(32, 4))
	t:add(pf.granted, buf(36, 4))
	return true, string.format(" msn %d granted %d", buf(32, 4):uint(),
		buf(36, 4):uint())
end

-- The UDP payload length of each type without its variable part: the
-- table of wire-protocol.rst, "Packet types".
local fixed_len = {
	[T_NACK] = HDR_LEN + NACK_LEN,
	[T_CONNECT] = HDR_LEN + CONNECT_LEN,
	[T_CONNECT_ACK] = HDR_LEN + CONNECT_LEN,
	[T_CLOSE] = HDR_LEN,
	[T_GRANT] = HDR_LEN + GRANT_LEN,
}

function wren.dissector(buf, pinfo, root)
	local len = buf:len()

	pinfo.cols.protocol = "Wren"
	problems = {}
	local tree = root:add(wren, buf())
	if len < HDR_LEN then
		pinfo.cols.info = "Wren, truncated header"
		tree:add_proto_expert_info(ef.malformed, string.format(
			"%d bytes, shorter than the %d-byte header", len,
			HDR_LEN))
		return len
	end

	local vt = buf(0, 1):uint()
	local ver, wtype = bit.rshift(vt, 4), bit.band(vt, 0x0f)
	local flags = buf(1, 1):uint()
	local src_ctx, dst_ctx = buf(4, 4):uint(), buf(8, 4):uint()
	local epoch, psn = buf(12, 4):uint(), buf(16, 4):uint()
	local ok = true

	local h = tree:add(wren, buf(0, HDR_LEN), "Transport header")
	h:set_text("Transport header")
	local vi = h:add(pf.version, buf(0, 1))
	if ver ~= WREN_VERSION then
		vi:add_proto_expert_info(ef.version)
		pinfo.cols.info = "Wren, version " .. ver
		return len
	end
	local ti = h:add(pf.type, buf(0, 1))
	ok = check_enum(ti, types, wtype, "packet type")
	local fi = h:add(pf.flags, buf(1, 1))
	fi:add(pf.f_ack_req, buf(1, 1))
	fi:add(pf.f_syn, buf(1, 1))
	fi:add(pf.f_retx, buf(1, 1))
	fi:add(pf.f_trimmed, buf(1, 1))
	h:add(pf.subflow, buf(2, 1))
	if bit.band(buf(2, 1):uint(), 0xf0) ~= 0 then
		h:add_proto_expert_info(ef.rsvd, "sub-flow bits [7:4] not zero")
	end
	add_rsvd(h, buf(3, 1))
	h:add(pf.src_ctx, buf(4, 4)):append_text(src_ctx == CTX_NONE and
		" (CTX_NONE)" or "")
	h:add(pf.dst_ctx, buf(8, 4)):append_text(dst_ctx == CTX_NONE and
		" (CTX_NONE)" or "")
	h:add(pf.epoch, buf(12, 4))
	h:add(pf.psn, buf(16, 4))
	h:add(pf.bsn, buf(20, 4))
	h:add(pf.ts, buf(24, 4))
	h:add(pf.mbase, buf(28, 4))
	h:add(pf.entropy, bit.band(pinfo.src_port, ENTROPY_MASK))
		:set_generated()
	local ecn_fi = { ip_dsfield_ecn() }
	if #ecn_fi > 0 then
		local ecn = ecn_fi[#ecn_fi].value
		h:add(pf.ecn, ecn):set_generated()
		local ce = h:add(pf.ce, ecn == ECN_CE)
		ce:set_generated()
		if ecn == ECN_CE then
			ce:add_proto_expert_info(ef.ce)
		end
	end

	local name = types[wtype] or ("type " .. wtype)
	local info = string.format("%s %s>%s psn %d sf %d", name,
		ctx_name(src_ctx), ctx_name(dst_ctx), psn,
		bit.band(buf(2, 1):uint(), 0x0f))
	tree:append_text(", " .. name .. ", PSN " .. psn)
	local more = ""

	if not ok then
		-- An unknown type has no known length: nothing more to read.
	elseif wtype == T_DATA or wtype == T_UD then
		if len < HDR_LEN + DATA_LEN then
			ok = malformed(tree, pinfo, string.format(
				"%s of %d bytes, shorter than its %d-byte headers",
				name, len, HDR_LEN + DATA_LEN))
		else
			ok, more = dissect_data(buf, pinfo, tree, wtype, flags)
		end
	elseif wtype == T_ACK then
		if len < HDR_LEN + ACK_LEN then
			ok = malformed(tree, pinfo, "ACK shorter than 40 bytes")
		else
			ok, more = dissect_ack(buf, pinfo, tree)
		end
	elseif len ~= fixed_len[wtype] then
		ok = malformed(tree, pinfo, string.format(
			"%s of %d bytes, not %d", name, len, fixed_len[wtype]))
	elseif wtype == T_NACK then
		ok, more = dissect_nack(buf, pinfo, tree)
	elseif wtype == T_CONNECT or wtype == T_CONNECT_ACK then
		ok, more = dissect_connect(buf, pinfo, tree)
	elseif wtype == T_GRANT then
		ok, more = dissect_grant(buf, pinfo, tree)
	end
	info = info .. more

	local ts = buf(24, 4):uint()
	if (wtype == T_ACK or wtype == T_NACK) and ok then
		local a = analyse_answer(pinfo, dst_ctx, epoch, psn, ts)

		if a.data then
			h:add(pf.a_data, a.data):set_generated()
			h:add(pf.a_rtt, a.rtt):set_generated()
		end
	end
	if wtype == T_DATA then
		local retx = bit.band(flags, F_RETX) ~= 0
		local a = analyse_data(pinfo, src_ctx, epoch, psn, ts, retx)

		if retx then
			local ri = h:add(pf.a_retx, true)
			ri:set_generated()
			ri:add_proto_expert_info(ef.retx)
		end
		if a.dup then
			local di = h:add(pf.a_dup, true)
			di:set_generated()
			di:add_proto_expert_info(ef.dup)
			info = info .. " [DUP]"
		end
		if a.first then
			h:add(pf.a_first, a.first):set_generated()
		end
	end
	for _, f in ipairs({ { F_SYN, "SYN" }, { F_ACK_REQ, "ACK_REQ" },
			      { F_RETX, "RETX" }, { F_TRIMMED, "TRIMMED" } }) do
		if bit.band(flags, f[1]) ~= 0 then
			info = info .. " " .. f[2]
		end
	end
	if bit.band(flags, F_TRIMMED) ~= 0 then
		h:add_proto_expert_info(ef.trimmed)
	end
	if #problems > 0 then
		info = info .. " [Malformed: " .. table.concat(problems, "; ") ..
			"]"
	end
	pinfo.cols.info = info
	return len
end

DissectorTable.get("udp.port"):add(WREN_UDP_PORT, wren)
