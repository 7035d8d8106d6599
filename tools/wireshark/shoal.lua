-- SPDX-License-Identifier: GPL-2.0
--
-- Wireshark / tshark dissector for the Shoal header (Documentation/wire.md).
--
--   tshark -X lua_script:tools/wireshark/shoal.lua -r capture.pcap
--   wireshark: copy or link it into ~/.local/lib/wireshark/plugins/
--
-- Shoal rides UDP to its destination's Shoal port (net.shoal.udp_port,
-- default 4797; the preference "shoal.udp_port" changes it).  A packet to
-- another port is taken for Shoal only if its first bytes could not be
-- anything else's (the heuristic below, off with shoal.heuristic: FALSE),
-- since a namespace may use another port.
--
-- The field names are the header's own (include/uapi/linux/shoal.h); the
-- type word is decoded per type, as wire.md's table says.

local shoal = Proto("shoal", "Shoal transport")

local HDR_LEN = 32
local HDR_MAX = 64
local VERSION = 1

local types = {
	[1] = "DATA", [2] = "CREDIT_REQ", [3] = "CREDIT", [4] = "RESEND",
	[5] = "BUSY", [6] = "UNKNOWN", [7] = "ACK", [8] = "ABORT",
	[9] = "RSV", [10] = "GRT",
}
-- byte 1, high bit first
local flag_names = {
	{ 0x80, "TRIMMED" }, { 0x40, "BOUNCED" }, { 0x20, "DEADLINE" },
	{ 0x10, "CSN" }, { 0x08, "REQUEST" }, { 0x04, "RESPONSE" },
	{ 0x02, "SCHED" }, { 0x01, "RETX" },
}
local F_TRIMMED, F_BOUNCED, F_DEADLINE = 0x80, 0x40, 0x20
local O_ACK = 0x01
-- the errno values UNKNOWN and ABORT carry (Linux's numbers)
local errnos = {
	[90] = "EMSGSIZE", [104] = "ECONNRESET", [111] = "ECONNREFUSED",
	[110] = "ETIMEDOUT", [125] = "ECANCELED",
}

local f = shoal.fields
f.version = ProtoField.uint8("shoal.version", "Version", base.DEC, nil, 0xf0)
f.type = ProtoField.uint8("shoal.type", "Type", base.DEC, types, 0x0f)
f.flags = ProtoField.uint8("shoal.flags", "Flags", base.HEX)
f.f_trimmed = ProtoField.bool("shoal.flags.trimmed", "Trimmed", 8, nil, 0x80)
f.f_bounced = ProtoField.bool("shoal.flags.bounced", "Bounced", 8, nil, 0x40)
f.f_deadline = ProtoField.bool("shoal.flags.deadline", "Deadline", 8, nil, 0x20)
f.f_csn = ProtoField.bool("shoal.flags.csn", "Congested sender", 8, nil, 0x10)
f.f_request = ProtoField.bool("shoal.flags.request", "Request", 8, nil, 0x08)
f.f_response = ProtoField.bool("shoal.flags.response", "Response", 8, nil, 0x04)
f.f_sched = ProtoField.bool("shoal.flags.sched", "Scheduled", 8, nil, 0x02)
f.f_retx = ProtoField.bool("shoal.flags.retx", "Retransmission", 8, nil, 0x01)
f.sport = ProtoField.uint16("shoal.sport", "Source port", base.DEC)
f.dport = ProtoField.uint16("shoal.dport", "Destination port", base.DEC)
f.hdr_len = ProtoField.uint8("shoal.hdr_len", "Header length", base.DEC)
f.options = ProtoField.uint8("shoal.options", "Options", base.HEX)
f.o_ack = ProtoField.bool("shoal.options.ack", "ACK option", 8, nil, O_ACK)
f.msg_id = ProtoField.uint64("shoal.msg_id", "Message id", base.HEX)
f.msg_len = ProtoField.uint32("shoal.msg_len", "Message length", base.DEC)
f.offset = ProtoField.uint32("shoal.offset", "Offset", base.DEC)
f.payload_len = ProtoField.uint32("shoal.payload_len", "Payload length", base.DEC)
f.word = ProtoField.uint32("shoal.word", "Type word", base.HEX)
f.unsched = ProtoField.uint32("shoal.unsched", "Unscheduled bytes", base.DEC)
f.grant = ProtoField.uint32("shoal.credit.added", "Credit added", base.DEC)
f.resend_len = ProtoField.uint32("shoal.resend.len", "Bytes to resend", base.DEC)
f.busy_notheld = ProtoField.bool("shoal.busy.notheld", "Not held", 32, nil, 0x1)
f.busy_all = ProtoField.bool("shoal.busy.all", "All messages", 32, nil, 0x2)
f.busy_gave_up = ProtoField.bool("shoal.busy.gave_up", "Gave up", 32, nil, 0x4)
f.busy_wait = ProtoField.uint32("shoal.busy.wait", "Intervals to next BUSY",
				base.DEC, nil, 0xff00)
f.errno = ProtoField.uint32("shoal.errno", "Reason", base.DEC, errnos)
f.rsv_demand = ProtoField.uint32("shoal.rsv.demand", "Packets", base.DEC,
				 nil, 0x0000ffff)
f.rsv_carried = ProtoField.uint32("shoal.rsv.carried", "Carried slot",
				  base.DEC, nil, 0xffff0000)
f.grt_in = ProtoField.uint32("shoal.grt.in_slot", "Input port slot",
			     base.DEC, nil, 0xffff0000)
f.grt_out = ProtoField.uint32("shoal.grt.out_slot", "Output port slot",
			      base.DEC, nil, 0x0000ffff)
f.deadline = ProtoField.int64("shoal.deadline", "Deadline", base.DEC)
f.acked = ProtoField.uint64("shoal.ack.msg_id", "Acknowledged response",
			    base.HEX)
f.unknown_opts = ProtoField.bytes("shoal.options.unknown", "Unknown options")
f.present = ProtoField.uint32("shoal.present", "Payload present", base.DEC)

local e_trimmed = ProtoExpert.new("shoal.trimmed.expert", "Trimmed packet",
				  expert.group.SEQUENCE, expert.severity.NOTE)
local e_bounced = ProtoExpert.new("shoal.bounced.expert",
				  "Returned to its sender by a switch",
				  expert.group.SEQUENCE, expert.severity.NOTE)
local e_malformed = ProtoExpert.new("shoal.malformed.expert",
				    "Malformed Shoal header",
				    expert.group.MALFORMED, expert.severity.ERROR)
shoal.experts = { e_trimmed, e_bounced, e_malformed }

shoal.prefs.udp_port = Pref.uint("Shoal UDP port", 4797,
				 "net.shoal.udp_port of the hosts captured")
shoal.prefs.heuristic = Pref.bool("Find Shoal on other ports", true,
				  "Try the header's checks on any UDP port")

local data_dis = Dissector.get("data")

local function flag_string(flags)
	local names = {}

	for _, fl in ipairs(flag_names) do
		if bit.band(flags, fl[1]) ~= 0 then
			names[#names + 1] = fl[2]
		end
	end
	return table.concat(names, ",")
end

-- The bytes a header of these flags and options needs (wire.md)
local function needed_len(flags, opts)
	local n = HDR_LEN

	if bit.band(flags, F_DEADLINE) ~= 0 then
		n = n + 8
	end
	if bit.band(opts, O_ACK) ~= 0 then
		n = n + 8
	end
	return n
end

-- Could these bytes be a Shoal header?  The heuristic's test: a known
-- version and type, and a header length its flags allow
local function plausible(buf)
	if buf:len() < HDR_LEN then
		return false
	end
	local vt = buf(0, 1):uint()
	local flags = buf(1, 1):uint()
	local hl = buf(6, 1):uint()
	local ty = bit.band(vt, 0x0f)

	return bit.rshift(vt, 4) == VERSION and types[ty] ~= nil and
		hl <= HDR_MAX and hl >= needed_len(flags, buf(7, 1):uint()) and
		buf:len() >= hl and buf(16, 4):uint() > 0
end

local function add_word(t, ty, buf)
	local w = buf(28, 4)
	local wt = t:add(f.word, w)

	if ty == 1 then
		wt:add(f.unsched, w)
	elseif ty == 3 then
		wt:add(f.grant, w)
	elseif ty == 4 then
		wt:add(f.resend_len, w)
	elseif ty == 5 then
		wt:add(f.busy_notheld, w)
		wt:add(f.busy_all, w)
		wt:add(f.busy_gave_up, w)
		wt:add(f.busy_wait, w)
	elseif ty == 6 or ty == 8 then
		wt:add(f.errno, w)
	elseif ty == 9 then
		wt:add(f.rsv_demand, w)
		wt:add(f.rsv_carried, w)
	elseif ty == 10 then
		wt:add(f.grt_in, w)
		wt:add(f.grt_out, w)
	end
end

function shoal.dissector(buf, pinfo, tree)
	local len = buf:len()

	if len < HDR_LEN then
		return 0
	end
	pinfo.cols.protocol = "Shoal"
	local vt = buf(0, 1):uint()
	local ty = bit.band(vt, 0x0f)
	local flags = buf(1, 1):uint()
	local hl = buf(6, 1):uint()
	local opts = buf(7, 1):uint()
	local hdr = math.min(math.max(hl, HDR_LEN), len)
	local t = tree:add(shoal, buf(0, hdr))

	t:add(f.version, buf(0, 1))
	t:add(f.type, buf(0, 1))
	local ft = t:add(f.flags, buf(1, 1))
	ft:append_text(" (" .. flag_string(flags) .. ")")
	ft:add(f.f_trimmed, buf(1, 1))
	ft:add(f.f_bounced, buf(1, 1))
	ft:add(f.f_deadline, buf(1, 1))
	ft:add(f.f_csn, buf(1, 1))
	ft:add(f.f_request, buf(1, 1))
	ft:add(f.f_response, buf(1, 1))
	ft:add(f.f_sched, buf(1, 1))
	ft:add(f.f_retx, buf(1, 1))
	t:add(f.sport, buf(2, 2))
	t:add(f.dport, buf(4, 2))
	local ht = t:add(f.hdr_len, buf(6, 1))
	local ot = t:add(f.options, buf(7, 1))
	ot:add(f.o_ack, buf(7, 1))
	t:add(f.msg_id, buf(8, 8))
	t:add(f.msg_len, buf(16, 4))
	t:add(f.offset, buf(20, 4))
	t:add(f.payload_len, buf(24, 4))
	add_word(t, ty, buf)

	local tname = types[ty] or string.format("type %d", ty)
	local info = string.format("%s %d > %d id=%s off=%d",
				   tname, buf(2, 2):uint(), buf(4, 2):uint(),
				   buf(8, 8):uint64():tohex(), buf(20, 4):uint())
	if flags ~= 0 then
		info = info .. " [" .. flag_string(flags) .. "]"
	end

	if bit.rshift(vt, 4) ~= VERSION or not types[ty] or hl > HDR_MAX or
	   hl < needed_len(flags, opts) or len < hl then
		ht:add_proto_expert_info(e_malformed,
					 "version, type or header length out of range")
		pinfo.cols.info = info .. " (malformed)"
		return len
	end

	-- the optional words, in the order wire.md gives them
	local at = HDR_LEN
	if bit.band(flags, F_DEADLINE) ~= 0 then
		t:add(f.deadline, buf(at, 8))
		at = at + 8
	end
	if bit.band(opts, O_ACK) ~= 0 then
		t:add(f.acked, buf(at, 8))
		at = at + 8
	end
	if hl > at then
		t:add(f.unknown_opts, buf(at, hl - at))
	end

	-- the bytes the packet had, not those a short snaplen kept
	local present = buf:reported_len() - hl
	local plen = buf(24, 4):uint()
	if ty == 1 then
		t:add(f.present, present):set_generated()
		if bit.band(flags, F_TRIMMED) ~= 0 or present < plen then
			t:add_proto_expert_info(e_trimmed,
				string.format("%d of %d payload bytes present",
					      present, plen))
			info = info .. string.format(" trimmed %d/%d", present, plen)
		else
			info = info .. string.format(" len=%d", plen)
		end
	end
	if bit.band(flags, F_BOUNCED) ~= 0 and ty ~= 10 then
		t:add_proto_expert_info(e_bounced)
	end
	pinfo.cols.info = info
	if len > hl then
		data_dis:call(buf(hl):tvb(), pinfo, tree)
	end
	return len
end

local function heuristic(buf, pinfo, tree)
	if not shoal.prefs.heuristic or not plausible(buf) then
		return false
	end
	shoal.dissector(buf, pinfo, tree)
	return true
end

local udp_port = DissectorTable.get("udp.port")
local registered_port = shoal.prefs.udp_port
udp_port:add(registered_port, shoal)
shoal:register_heuristic("udp", heuristic)

function shoal.prefs_changed()
	if registered_port ~= shoal.prefs.udp_port then
		udp_port:remove(registered_port, shoal)
		registered_port = shoal.prefs.udp_port
		udp_port:add(registered_port, shoal)
	end
end
