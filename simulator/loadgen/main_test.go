package main

// Unit tests of the load generator: frames as the terminals write them (checked with a decoder written
// here, independent of the one under test), the platform-reply parser, the resend schedule, 0x0704
// backlog batches, the reconciliation log, and a whole run against a fake gateway on loopback.
// The platform frames used as input were encoded by the project's Python codec
// (protocols/jt808: encode_frame with PlatformResponse / RegistrationResponse).
// Run: cd simulator/loadgen && GOTOOLCHAIN=local CGO_ENABLED=0 go test ./...

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------------- test decoder

type testFrame struct {
	msgID uint16
	phone string // the 12 BCD digits of the header
	seq   uint16
	body  []byte
}

// decodeTestFrame checks one frame (with its 7e delimiters) the way a platform would: delimiters, no
// bare 7e inside, only 7d 01 / 7d 02 escapes, XOR checksum, a 2013 header whose body length is right.
func decodeTestFrame(frame []byte) (testFrame, error) {
	if len(frame) < 2 || frame[0] != 0x7e || frame[len(frame)-1] != 0x7e {
		return testFrame{}, errors.New("not delimited by 7e")
	}
	inner := frame[1 : len(frame)-1]
	if bytes.IndexByte(inner, 0x7e) >= 0 {
		return testFrame{}, errors.New("unescaped 7e inside the frame")
	}
	var data []byte
	for i := 0; i < len(inner); i++ {
		if inner[i] != 0x7d {
			data = append(data, inner[i])
			continue
		}
		if i+1 >= len(inner) {
			return testFrame{}, errors.New("7d at the end")
		}
		switch inner[i+1] {
		case 0x01:
			data = append(data, 0x7d)
		case 0x02:
			data = append(data, 0x7e)
		default:
			return testFrame{}, fmt.Errorf("bad escape 7d %02x", inner[i+1])
		}
		i++
	}
	if len(data) < 13 {
		return testFrame{}, fmt.Errorf("%d bytes: shorter than a header", len(data))
	}
	var x byte
	for _, b := range data {
		x ^= b
	}
	if x != 0 {
		return testFrame{}, fmt.Errorf("checksum %02x is wrong", data[len(data)-1])
	}
	attr := int(data[2])<<8 | int(data[3])
	if attr&^0x3ff != 0 {
		return testFrame{}, fmt.Errorf("attribute %04x: not a plain 2013 header", attr)
	}
	if len(data) != 12+attr+1 {
		return testFrame{}, fmt.Errorf("body length %d, frame holds %d", attr, len(data)-13)
	}
	return testFrame{
		msgID: uint16(data[0])<<8 | uint16(data[1]),
		phone: hex.EncodeToString(data[4:10]),
		seq:   uint16(data[10])<<8 | uint16(data[11]),
		body:  append([]byte(nil), data[12:len(data)-1]...),
	}, nil
}

// splitTestFrames: each 7e ... 7e of a stream of whole frames.
func splitTestFrames(t *testing.T, stream []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(stream) > 0 {
		if stream[0] != 0x7e {
			t.Fatalf("stream does not start with 7e: % x", stream)
		}
		end := bytes.IndexByte(stream[1:], 0x7e)
		if end < 0 {
			t.Fatalf("unterminated frame: % x", stream)
		}
		out = append(out, stream[:end+2])
		stream = stream[end+2:]
	}
	return out
}

func mustDecode(t *testing.T, frame []byte) testFrame {
	t.Helper()
	f, err := decodeTestFrame(frame)
	if err != nil {
		t.Fatalf("invalid frame % x: %v", frame, err)
	}
	return f
}

type testLocation struct {
	alarm, status, lat, lng uint32
	altitude, speed, dir    uint16
	fix                     int64
	items                   map[byte][]byte
}

func bcdValue(b byte) (int, error) {
	hi, lo := int(b>>4), int(b&0x0f)
	if hi > 9 || lo > 9 {
		return 0, fmt.Errorf("%02x is not BCD", b)
	}
	return hi*10 + lo, nil
}

func decodeTestLocation(b []byte) (testLocation, error) {
	if len(b) < 28 {
		return testLocation{}, fmt.Errorf("0x0200 body of %d bytes", len(b))
	}
	u32 := func(i int) uint32 { return uint32(b[i])<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3]) }
	u16 := func(i int) uint16 { return uint16(b[i])<<8 | uint16(b[i+1]) }
	var tm [6]int
	for i := range tm {
		v, err := bcdValue(b[22+i])
		if err != nil {
			return testLocation{}, err
		}
		tm[i] = v
	}
	fix := time.Date(2000+tm[0], time.Month(tm[1]), tm[2], tm[3], tm[4], tm[5], 0, time.FixedZone("GMT+8", 8*3600))
	loc := testLocation{alarm: u32(0), status: u32(4), lat: u32(8), lng: u32(12), altitude: u16(16), speed: u16(18),
		dir: u16(20), fix: fix.Unix(), items: map[byte][]byte{}}
	for i := 28; i < len(b); {
		if i+2 > len(b) || i+2+int(b[i+1]) > len(b) {
			return testLocation{}, fmt.Errorf("item at %d overruns the body", i)
		}
		loc.items[b[i]] = b[i+2 : i+2+int(b[i+1])]
		i += 2 + int(b[i+1])
	}
	return loc, nil
}

// decodeTestBatch: a 0x0704 body's kind and positions.
func decodeTestBatch(b []byte) (int, []testLocation, error) {
	if len(b) < 3 {
		return 0, nil, errors.New("short 0x0704")
	}
	count, kind := int(b[0])<<8|int(b[1]), int(b[2])
	var items []testLocation
	pos := 3
	for i := 0; i < count; i++ {
		if pos+2 > len(b) {
			return 0, nil, fmt.Errorf("0x0704 announces %d items, has %d", count, i)
		}
		n := int(b[pos])<<8 | int(b[pos+1])
		pos += 2
		if pos+n > len(b) {
			return 0, nil, fmt.Errorf("item %d overruns", i)
		}
		loc, err := decodeTestLocation(b[pos : pos+n])
		if err != nil {
			return 0, nil, err
		}
		items = append(items, loc)
		pos += n
	}
	if pos != len(b) {
		return 0, nil, fmt.Errorf("%d bytes after the last item", len(b)-pos)
	}
	return kind, items, nil
}

// ---------------------------------------------------------------------------------- helpers

func testConfig() *config {
	return &config{prefix: "0138", first: 1, terminals: 100, rate: 100, duration: 60, ackTimeout: 10, retries: 3,
		batchItems: 20, heartbeat: 30, reconnectMin: 1, reconnectMax: 30, connectRamp: 500, fixStart: 1764300000}
}

func newTestTerminal(cfg *config, idx int, log *eventLog) *terminal {
	phone := fmt.Sprintf("%s%08d", cfg.prefix, idx)
	return &terminal{idx: idx, phone: phone, bcd: bcdPhone(phone), cfg: cfg, log: log,
		codes: &codeStore{codes: map[string]string{}}, rng: rand.New(rand.NewSource(int64(idx))),
		wait: map[uint16]*pending{}, everSent: map[int32]bool{}, kick: make(chan struct{}, 1), seq: 100}
}

// testLog: a reconciliation log in a temporary file; lines() closes it and returns its lines.
type testLog struct {
	*eventLog
	path string
}

func newTestLog(t *testing.T, cfg *config) *testLog {
	t.Helper()
	phones := make([]string, cfg.terminals)
	for i := range phones {
		phones[i] = fmt.Sprintf("%s%08d", cfg.prefix, cfg.first+i)
	}
	path := filepath.Join(t.TempDir(), "loadgen.log")
	l, err := newEventLog(path, phones)
	if err != nil {
		t.Fatal(err)
	}
	return &testLog{l, path}
}

func (l *testLog) lines(t *testing.T) []string {
	t.Helper()
	l.close()
	data, err := os.ReadFile(l.path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// eventsSince: the log's lines without their event time, each time checked to be a unix millisecond count
// from since to now (the time a position was sent or acknowledged).
func (l *testLog) eventsSince(t *testing.T, since time.Time) []string {
	t.Helper()
	lines := l.lines(t)
	now := time.Now().UnixMilli()
	out := make([]string, len(lines))
	for i, line := range lines {
		cut := strings.LastIndexByte(line, ',')
		at, err := strconv.ParseInt(line[cut+1:], 10, 64)
		if cut < 0 || err != nil || at < since.UnixMilli() || at > now {
			t.Fatalf("line %q: no event time between %d and %d", line, since.UnixMilli(), now)
		}
		out[i] = line[:cut]
	}
	return out
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ---------------------------------------------------------------------------------- frames

func TestBCDPhone(t *testing.T) {
	if got := hex.EncodeToString(bcdPhone("013800000042")); got != "013800000042" {
		t.Errorf("bcdPhone(013800000042) = %s", got)
	}
	if got := hex.EncodeToString(bcdPhone("13912345678")); got != "013912345678" {
		t.Errorf("an 11-digit phone is left-padded with 0: got %s", got)
	}
}

func TestLocationFrameAsSentIsAValidJT808Frame(t *testing.T) {
	cfg := testConfig()
	cfg.fixStart = time.Date(2026, 11, 28, 20, 30, 0, 0, time.UTC).Unix() // 04:30 the next day in GMT+8
	term := newTestTerminal(cfg, 42, newTestLog(t, cfg).eventLog)
	term.seq = 0x7e7d // the serial itself must be escaped
	term.owed = []int32{7}
	stream := term.fill(nil, time.Now())
	frames := splitTestFrames(t, stream)
	if len(frames) != 1 {
		t.Fatalf("one owed position: want one frame, got %d", len(frames))
	}
	if !bytes.Contains(frames[0], []byte{0x7d, 0x02, 0x7d, 0x01}) {
		t.Errorf("serial 7e7d is not escaped as 7d 02 7d 01: % x", frames[0])
	}
	f := mustDecode(t, frames[0])
	if f.msgID != msgLocation || f.phone != "013800000042" || f.seq != 0x7e7d {
		t.Fatalf("header: id %04x phone %s serial %04x", f.msgID, f.phone, f.seq)
	}
	loc, err := decodeTestLocation(f.body)
	if err != nil {
		t.Fatal(err)
	}
	want := testLocation{alarm: 0, status: 3, lat: 39900000 + 42*200 + 70, lng: 116400000 + 70, altitude: 50,
		speed: 307, dir: 49, fix: cfg.fixStart + 7*cfg.fixStep()}
	if loc.alarm != want.alarm || loc.status != want.status || loc.lat != want.lat || loc.lng != want.lng ||
		loc.altitude != want.altitude || loc.speed != want.speed || loc.dir != want.dir || loc.fix != want.fix {
		t.Errorf("location\n got %+v\nwant %+v", loc, want)
	}
	if got := loc.items[0x01]; !bytes.Equal(got, []byte{0, 0, 0x27, 0x17}) { // mileage 10007 (1/10 km)
		t.Errorf("item 0x01 mileage: % x", got)
	}
	if !bytes.Equal(loc.items[0x30], []byte{25}) || !bytes.Equal(loc.items[0x31], []byte{12}) {
		t.Errorf("items 0x30 signal / 0x31 satellites: %v", loc.items)
	}
	if p := term.wait[0x7e7d]; p == nil || p.k != 7 || p.batch != nil || p.sends != 1 {
		t.Errorf("the position awaits its ack under its serial: %+v", term.wait)
	}
	if term.seq != 0x7e7e {
		t.Errorf("next serial %04x, want 7e7e", term.seq)
	}
}

func TestEveryFrameIsEscapedAndChecksummed(t *testing.T) {
	// all 65536 serials: some checksums and header bytes are 7e / 7d; every frame must still decode
	phone := bcdPhone("013800000001")
	escaped := 0
	for seq := 0; seq < 0x10000; seq++ {
		body := locationBody(nil, seq%1000, seq, 1764300000+int64(seq))
		frame := appendFrame(nil, msgLocation, phone, uint16(seq), body)
		f, err := decodeTestFrame(frame)
		if err != nil {
			t.Fatalf("serial %04x: %v (% x)", seq, err, frame)
		}
		if f.seq != uint16(seq) || f.msgID != msgLocation || !bytes.Equal(f.body, body) {
			t.Fatalf("serial %04x: decoded %+v", seq, f)
		}
		if len(frame) != 2+12+len(body)+1 {
			escaped++
		}
	}
	if escaped < 256 {
		t.Errorf("only %d of 65536 frames needed an escape: the test does not exercise escaping", escaped)
	}
	// the checksum byte alone escaped
	for seq := 0; seq < 0x10000; seq++ {
		frame := appendFrame(nil, msgHeartbeat, phone, uint16(seq), nil)
		if frame[len(frame)-3] == 0x7d && byte(seq>>8) != 0x7e && byte(seq>>8) != 0x7d && byte(seq) != 0x7e && byte(seq) != 0x7d {
			mustDecode(t, frame)
			return
		}
	}
	t.Error("no heartbeat frame with an escaped checksum")
}

// ---------------------------------------------------------------------------------- platform replies

// encoded by protocols/jt808 encode_frame (phone 013800000001)
const (
	ack0200    = "7e80010005013800000001000712340200009f7e"           // 0x8001 serial 1234 id 0200 result 0
	ack0704Esc = "7e800100050138000000017d017d027d027d01070400bf7e"   // 0x8001 serial 7e7d id 0704, escaped
	ack2019    = "7e80014005010000000001380000000100090102020001f47e" // 2019 header: serial 0102 id 0200 result 1
	reg8100    = "7e8100000a0138000000010008004200415554482d3432da7e" // 0x8100 serial 0042 result 0 code AUTH-42
	reg8100No  = "7e810000030138000000010008004304f57e"               // 0x8100 serial 0043 result 4
)

func feedAll(chunks ...[]byte) ([]reply, int64) {
	before := st.BadFrames
	var r frameReader
	var out []reply
	for _, c := range chunks {
		out = r.feed(c, out)
	}
	return out, st.BadFrames - before
}

func TestPlatformRepliesFromTheProjectCodecAreParsed(t *testing.T) {
	cases := []struct {
		hex  string
		want reply
	}{
		{ack0200, reply{msgPlatformAck, 0x1234, msgLocation, 0, ""}},
		{ack0704Esc, reply{msgPlatformAck, 0x7e7d, msgBatch, 0, ""}},
		{ack2019, reply{msgPlatformAck, 0x0102, msgLocation, 1, ""}},
		{reg8100, reply{msgRegReply, 0x0042, msgRegister, 0, "AUTH-42"}},
		{reg8100No, reply{msgRegReply, 0x0043, msgRegister, 4, ""}},
	}
	for _, c := range cases {
		got, bad := feedAll(mustHex(t, c.hex))
		if len(got) != 1 || got[0] != c.want || bad != 0 {
			t.Errorf("%s: got %+v (bad frames %d), want %+v", c.hex, got, bad, c.want)
		}
		// byte by byte, as a slow socket delivers it
		raw := mustHex(t, c.hex)
		chunks := make([][]byte, len(raw))
		for i := range raw {
			chunks[i] = raw[i : i+1]
		}
		if got, _ := feedAll(chunks...); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s byte by byte: got %+v", c.hex, got)
		}
	}
}

func TestReplyStreamsFramesShareDelimitersAndGarbageIsSkipped(t *testing.T) {
	a, b := mustHex(t, ack0200), mustHex(t, ack0704Esc)
	stream := append([]byte("garbage \x01\x02"), a...)
	stream = append(stream, b[1:]...) // 7e A 7e B 7e: one delimiter between them
	stream = append(stream, a...)
	got, _ := feedAll(stream)
	if len(got) != 3 || got[0].ackSeq != 0x1234 || got[1].ackSeq != 0x7e7d || got[2].ackSeq != 0x1234 {
		t.Fatalf("got %+v", got)
	}
}

func TestCorruptRepliesAreRejected(t *testing.T) {
	good := mustHex(t, ack0200)
	corrupt := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := map[string][]byte{
		"checksum":           corrupt(func(b []byte) []byte { b[len(b)-2] ^= 0x01; return b }),
		"serial bit flipped": corrupt(func(b []byte) []byte { b[14] ^= 0x10; return b }),
		"bad escape": corrupt(func(b []byte) []byte {
			return append(append(b[:14:14], 0x7d, 0x03), b[15:]...)
		}),
		"body shorter than its length": corrupt(func(b []byte) []byte { // drop the result byte, fix the checksum
			b = append(b[:17:17], b[18:]...)
			var x byte
			for _, c := range b[1 : len(b)-2] {
				x ^= c
			}
			b[len(b)-2] = x
			return b
		}),
		"body longer than its length": corrupt(func(b []byte) []byte { // one byte more, checksum fixed
			b = append(b[:18:18], 0x00, b[18], 0x7e)
			return b
		}),
		"too short": {0x7e, 0x80, 0x01, 0x00, 0x7e},
		"7d at the end": corrupt(func(b []byte) []byte {
			return append(b[:len(b)-1:len(b)-1], 0x7d, 0x7e)
		}),
	}
	for name, frame := range cases {
		got, bad := feedAll(frame)
		if len(got) != 0 || bad != 1 {
			t.Errorf("%s (% x): got %+v, %d bad frames; want none and 1", name, frame, got, bad)
		}
	}
	// 7d 03 is no escape, even where reading it as 0x7f would make the checksum right
	lenient := appendFrame(nil, msgPlatformAck, bcdPhone("013800000001"), 7, []byte{0x12, 0x7f, 0x02, 0x00, 0})
	i := bytes.IndexByte(lenient, 0x7f)
	lenient = append(append(lenient[:i:i], 0x7d, 0x03), lenient[i+1:]...)
	if got, bad := feedAll(lenient); len(got) != 0 || bad != 1 {
		t.Errorf("7d 03 (% x): got %+v, %d bad frames", lenient, got, bad)
	}
	// a corrupt frame does not hide the next good one
	got, _ := feedAll(cases["checksum"], good)
	if len(got) != 1 || got[0].ackSeq != 0x1234 {
		t.Errorf("after a corrupt frame: %+v", got)
	}
}

func TestRandomBytesNeverPanicNorAcknowledge(t *testing.T) {
	rng := rand.New(rand.NewSource(808))
	var r frameReader
	var out []reply
	for i := 0; i < 20000; i++ {
		chunk := make([]byte, rng.Intn(64))
		for j := range chunk {
			switch rng.Intn(8) {
			case 0:
				chunk[j] = 0x7e
			case 1:
				chunk[j] = 0x7d
			default:
				chunk[j] = byte(rng.Intn(256))
			}
		}
		out = r.feed(chunk, out[:0])
		for _, rep := range out {
			// a random frame passing escape, length and checksum checks by chance must at least be whole
			if rep.msgID != msgPlatformAck && rep.msgID != msgRegReply {
				t.Fatalf("reply of id %04x", rep.msgID)
			}
		}
	}
	if len(r.buf) > 1<<16 {
		t.Errorf("reader holds %d bytes", len(r.buf))
	}
}

func FuzzFrameReader(f *testing.F) {
	for _, s := range []string{ack0200, ack0704Esc, ack2019, reg8100, reg8100No} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	f.Add([]byte{0x7e, 0x7d, 0x7e})
	f.Fuzz(func(t *testing.T, data []byte) {
		var r frameReader
		for _, rep := range r.feed(data, nil) {
			if rep.msgID != msgPlatformAck && rep.msgID != msgRegReply {
				t.Fatalf("reply of id %04x", rep.msgID)
			}
		}
	})
}

// ---------------------------------------------------------------------------------- acks and resends

func TestAckMustMatchSerialAndMessageID(t *testing.T) {
	started := time.Now()
	cfg := testConfig()
	log := newTestLog(t, cfg)
	term := newTestTerminal(cfg, 1, log.eventLog)
	term.owed = []int32{0}
	term.fill(nil, time.Now())
	seq := uint16(100)
	if term.wait[seq] == nil {
		t.Fatalf("position not awaiting an ack under serial %d: %+v", seq, term.wait)
	}
	acked := st.Acked
	for _, r := range []reply{
		{msgPlatformAck, seq + 1, msgLocation, 0, ""}, // another serial
		{msgPlatformAck, seq, msgBatch, 0, ""},        // the serial, but for a 0x0704
		{msgPlatformAck, seq, msgHeartbeat, 0, ""},    // the serial, but for a heartbeat
	} {
		term.acknowledged(r)
		if term.wait[seq] == nil || st.Acked != acked {
			t.Fatalf("%+v acknowledged the 0x0200 of serial %d", r, seq)
		}
	}
	term.acknowledged(reply{msgPlatformAck, seq, msgLocation, 0, ""})
	if term.wait[seq] != nil || st.Acked != acked+1 || len(term.everSent) != 0 {
		t.Fatalf("the matching ack did not settle the position: wait %+v everSent %v", term.wait, term.everSent)
	}
	// a duplicate ack changes nothing
	term.acknowledged(reply{msgPlatformAck, seq, msgLocation, 0, ""})
	if st.Acked != acked+1 {
		t.Error("a duplicate ack counted twice")
	}
	fix := strconv.FormatInt(cfg.fixStart, 10)
	if got := log.eventsSince(t, started); strings.Join(got, ";") != "s,013800000001,"+fix+";a,013800000001,"+fix {
		t.Errorf("log %q", got)
	}
}

func TestRefusedPositionIsSentAgainAsBacklog(t *testing.T) {
	cfg := testConfig()
	term := newTestTerminal(cfg, 1, newTestLog(t, cfg).eventLog)
	term.owed = []int32{0, 1}
	term.connectedAt = 0
	term.fill(nil, time.Now())
	if wake := term.acknowledged(reply{msgPlatformAck, 100, msgLocation, 2, ""}); !wake {
		t.Error("a refusal must wake the writer")
	}
	if len(term.owed) != 1 || term.owed[0] != 0 || !term.everSent[0] {
		t.Fatalf("refused position 0 not owed again: owed %v", term.owed)
	}
	frames := splitTestFrames(t, term.fill(nil, time.Now()))
	f := mustDecode(t, frames[0])
	if kind, items, err := decodeTestBatch(f.body); f.msgID != msgBatch || err != nil || kind != 1 || len(items) != 1 ||
		items[0].fix != cfg.fixStart {
		t.Errorf("refused position resent as %04x kind %d items %+v (%v)", f.msgID, kind, items, err)
	}
}

func TestResendScheduleFollowsJT808ThenTheLinkIsBroken(t *testing.T) {
	cfg := testConfig()
	cfg.ackTimeout = 2
	T := 2 * time.Second
	// T(1) = T, T(n+1) = T(n) x (n+1)
	want := []time.Duration{T, T, 2 * T, 6 * T, 24 * T, 120 * T}
	for sends, w := range want {
		if got := cfg.resendAfter(int32(sends)); got != w {
			t.Errorf("resendAfter(%d) = %v, want %v", sends, got, w)
		}
	}
	// through the writer: the same serial and the same frame, T, 2T and 6T after each send; then no more
	// resends, and the link counts as broken 24T after the last
	log := newTestLog(t, cfg)
	term := newTestTerminal(cfg, 1, log.eventLog)
	term.owed = []int32{0}
	t0 := time.Unix(1764300000, 0)
	first := term.fill(nil, t0)
	resent := st.Resent
	at := t0
	for i, gap := range []time.Duration{T, 2 * T, 6 * T} {
		if out := term.fill(nil, at.Add(gap-time.Millisecond)); len(out) != 0 {
			t.Fatalf("resend %d came before %v", i+1, gap)
		}
		if term.linkBroken(at.Add(gap)) {
			t.Fatalf("link broken before resend %d", i+1)
		}
		at = at.Add(gap)
		out := term.fill(nil, at)
		if !bytes.Equal(out, first) {
			t.Fatalf("resend %d at +%v: got % x, want the first frame again % x", i+1, gap, out, first)
		}
	}
	if next, ok := term.nextResend(); !ok || !next.Equal(at.Add(24*T)) {
		t.Errorf("the writer must wake when the last resend's timeout runs out (%v), not %v", at.Add(24*T), next)
	}
	if term.linkBroken(at.Add(24*T - time.Millisecond)) {
		t.Error("link broken before the last resend's timeout (24T) ran out")
	}
	if out := term.fill(nil, at.Add(24*T)); len(out) != 0 {
		t.Errorf("a fourth resend with -retries 3: % x", out)
	}
	if !term.linkBroken(at.Add(24 * T)) {
		t.Error("the last resend went unanswered for 24T: the link must count as broken")
	}
	if st.Resent-resent != 3 {
		t.Errorf("resent counted %d, want 3", st.Resent-resent)
	}
	if lines := log.lines(t); len(lines) != 1 || !strings.HasPrefix(lines[0], "s,") {
		t.Errorf("a resend is not a new position in the log: %q", lines)
	}
	// what was unacknowledged goes up as backlog on the next connection
	term.disconnected()
	term.connectedAt = 1
	frames := splitTestFrames(t, term.fill(nil, at.Add(25*T)))
	if f := mustDecode(t, frames[0]); len(frames) != 1 || f.msgID != msgBatch {
		t.Errorf("after the link broke, position 0 went up as %04x (want one 0x0704)", f.msgID)
	}
}

func TestNoRetriesMeansTheFirstTimeoutBreaksTheLink(t *testing.T) {
	cfg := testConfig()
	cfg.retries = 0
	term := newTestTerminal(cfg, 1, newTestLog(t, cfg).eventLog)
	term.owed = []int32{0}
	t0 := time.Unix(1764300000, 0)
	term.fill(nil, t0)
	if out := term.fill(nil, t0.Add(10*time.Second)); len(out) != 0 || !term.linkBroken(t0.Add(10*time.Second)) {
		t.Errorf("-retries 0: resent % x, link broken %v", out, term.linkBroken(t0.Add(10*time.Second)))
	}
}

func TestAckQuantilesHoldFromMillisecondsToMinutes(t *testing.T) {
	var h histogram
	// 1,000 acks: 500 at 3 ms, 489 at 4.5 s, 10 at 130 s and the slowest at 327 s
	for i := 0; i < 500; i++ {
		h.add(3 * time.Millisecond)
	}
	for i := 0; i < 489; i++ {
		h.add(4500 * time.Millisecond)
	}
	for i := 0; i < 10; i++ {
		h.add(130 * time.Second)
	}
	h.add(327 * time.Second)
	near := func(got, want float64) bool { return math.Abs(got-want) <= want/64 }
	if got := h.quantile(0.4); !near(got, 3.5) {
		t.Errorf("p40 %v ms, want 3 ms (its 1 ms bucket)", got)
	}
	if got := h.quantile(0.5); !near(got, 4500) {
		t.Errorf("p50 %v ms, want 4,500", got)
	}
	if got := h.quantile(0.995); !near(got, 130000) {
		t.Errorf("p99.5 %v ms, want 130,000", got)
	}
	if got := h.quantile(0.9999); !near(got, 327000) || h.max != 327000 {
		t.Errorf("p99.99 %v ms, max %v: want the slowest, 327,000", got, h.max)
	}
	for _, ms := range []float64{0, 1, 63, 64, 65, 127, 128, 1000, 4095, 4096, 60000, 4e6, 1e9} {
		b := histBucket(ms)
		if b < 0 || b >= len(h.buckets) || (ms < 4e6 && !near(histMid(b), ms) && math.Abs(histMid(b)-ms) > 1) {
			t.Errorf("%v ms -> bucket %d (middle %v)", ms, b, histMid(b))
		}
	}
}

// ---------------------------------------------------------------------------------- 0x0704 backlog

func TestBacklogGoesUpAs0704BatchesOneInFlight(t *testing.T) {
	cfg := testConfig()
	cfg.batchItems = 3
	log := newTestLog(t, cfg)
	term := newTestTerminal(cfg, 5, log.eventLog)
	now := time.Now()
	term.owed = []int32{0, 1}
	term.fill(nil, now) // sent on the first connection, never acknowledged
	term.disconnected() // the connection drops
	if len(term.wait) != 0 || fmt.Sprint(term.owed) != "[0 1]" {
		t.Fatalf("after a drop: wait %v owed %v", term.wait, term.owed)
	}
	// positions 2-4 fell due while offline; 5 and 6 during the next connection
	term.next = 7
	term.owed = append(term.owed, 2, 3, 4, 5, 6)
	term.connectedAt = 5

	frames := splitTestFrames(t, term.fill(nil, now))
	if len(frames) != 1 {
		t.Fatalf("one batch in flight at a time, and live positions wait behind the backlog: %d frames", len(frames))
	}
	f := mustDecode(t, frames[0])
	kind, items, err := decodeTestBatch(f.body)
	if f.msgID != msgBatch || err != nil || kind != 1 || len(items) != 3 {
		t.Fatalf("first batch: id %04x kind %d %d items (%v)", f.msgID, kind, len(items), err)
	}
	for i, loc := range items {
		if want := cfg.fixStart + int64(i)*cfg.fixStep(); loc.fix != want || loc.lat != uint32(39900000+5*200+i*10) {
			t.Errorf("batch item %d: fix %d lat %d, want fix %d", i, loc.fix, loc.lat, want)
		}
	}
	if out := term.fill(nil, now); len(out) != 0 {
		t.Fatalf("a second batch went up before the first was acknowledged: % x", out)
	}
	if wake := term.acknowledged(reply{msgPlatformAck, f.seq, msgLocation, 0, ""}); wake || len(term.wait) != 1 {
		t.Fatal("a 0x0200 ack settled a 0x0704")
	}
	if wake := term.acknowledged(reply{msgPlatformAck, f.seq, msgBatch, 0, ""}); !wake {
		t.Error("an acknowledged batch must wake the writer for the next one")
	}
	frames = splitTestFrames(t, term.fill(nil, now))
	var ids []string
	for _, fr := range frames {
		d := mustDecode(t, fr)
		if d.msgID == msgBatch {
			_, items, _ := decodeTestBatch(d.body)
			ids = append(ids, fmt.Sprintf("0704x%d", len(items)))
		} else {
			loc, _ := decodeTestLocation(d.body)
			ids = append(ids, fmt.Sprintf("0200@%d", (loc.fix-cfg.fixStart)/cfg.fixStep()))
		}
		term.acknowledged(reply{msgPlatformAck, d.seq, d.msgID, 0, ""})
	}
	if strings.Join(ids, " ") != "0704x2 0200@5 0200@6" {
		t.Errorf("then: %s; want the rest of the backlog (3, 4) then 5 and 6 live", strings.Join(ids, " "))
	}
	if !term.settled() {
		t.Errorf("not settled: owed %v wait %v", term.owed, term.wait)
	}
	// each position once "s" (even the two sent twice) and once "a"
	counts := map[string]int{}
	for _, line := range log.lines(t) {
		counts[line[:1]]++
	}
	if counts["s"] != 7 || counts["a"] != 7 {
		t.Errorf("log: %v, want 7 s and 7 a", counts)
	}
}

func TestWhatFellDueWhileOfflineIsBacklog(t *testing.T) {
	cfg := testConfig()
	cfg.terminals, cfg.rate = 10, 10 // interval 1 s
	term := newTestTerminal(cfg, 1, newTestLog(t, cfg).eventLog)
	start := time.Unix(1764300000, 0)
	term.connected(start, 0, start.Add(1500*time.Millisecond)) // positions 0 and 1 fell due before the login
	if fmt.Sprint(term.owed) != "[0 1]" || term.connectedAt != 2 {
		t.Fatalf("owed %v connectedAt %d", term.owed, term.connectedAt)
	}
	term.generate(start, 0, start.Add(2*time.Second)) // position 2: due while connected
	var ids []uint16
	for _, frame := range splitTestFrames(t, term.fill(nil, start.Add(2*time.Second))) {
		ids = append(ids, mustDecode(t, frame).msgID)
	}
	if fmt.Sprintf("%04x", ids) != "[0704 0200]" {
		t.Errorf("frames %04x; want 0704 (positions 0, 1) then 0200 (position 2)", ids)
	}
}

func TestBatchBodyLayout(t *testing.T) {
	cfg := testConfig()
	term := newTestTerminal(cfg, 9, nil)
	frame := term.appendBatch(nil, 0x0102, []int32{3, 4})
	f := mustDecode(t, frame)
	b := f.body
	one := locationBody(nil, 9, 3, term.fixOf(3))
	if b[0] != 0 || b[1] != 2 || b[2] != 1 || int(b[3])<<8|int(b[4]) != len(one) || !bytes.Equal(b[5:5+len(one)], one) {
		t.Errorf("0x0704 body: count WORD 2, kind 1 (blind area), then WORD length + 0x0200 body: % x", b)
	}
	if f.seq != 0x0102 || f.phone != "013800000009" {
		t.Errorf("header %+v", f)
	}
}

// ---------------------------------------------------------------------------------- schedule and log

func TestPositionsFallDueOnTheTerminalsClockUntilTheEnd(t *testing.T) {
	cfg := testConfig()
	cfg.terminals, cfg.rate, cfg.duration = 4, 8, 10 // interval 0.5 s
	term := newTestTerminal(cfg, 1, nil)
	start := time.Unix(1764300000, 0)
	phase := 200 * time.Millisecond
	steps := []struct {
		at   time.Duration
		next int32
	}{
		{-time.Second, 0}, {phase - time.Nanosecond, 0}, // nothing before the first report time
		{phase, 1}, {phase + 499*time.Millisecond, 1}, {phase + 500*time.Millisecond, 2},
		{phase + 2250*time.Millisecond, 5},
		{time.Hour, 20}, // capped at the end of the generating period: due times 0.2 .. 9.7 s
	}
	for _, s := range steps {
		term.generate(start, phase, start.Add(s.at))
		if term.next != s.next {
			t.Errorf("at start%+v: %d positions due, want %d", s.at, term.next, s.next)
		}
	}
	if len(term.owed) != 20 || term.owed[0] != 0 || term.owed[19] != 19 {
		t.Errorf("owed %v", term.owed)
	}
	if cfg.fixStep() != 1 {
		t.Errorf("fix step %d s for a 0.5 s interval, want 1 (BCD times have whole seconds)", cfg.fixStep())
	}
	cfg.rate = 1 // interval 4 s
	if cfg.fixStep() != 4 {
		t.Errorf("fix step %d, want 4", cfg.fixStep())
	}
}

func TestReconciliationLogLines(t *testing.T) {
	if got := string(appendLogLine(nil, 's', "013800000001", 1764300000, 1764300000250)); got != "s,013800000001,1764300000,1764300000250\n" {
		t.Errorf("got %q", got)
	}
	cfg := testConfig()
	cfg.first, cfg.terminals = 41, 3
	log := newTestLog(t, cfg)
	log.ch <- logEvent{'s', 1, 1764300000, 1764300000012}
	log.ch <- logEvent{'a', 2, 1764300005, 1764300007345}
	if got := log.lines(t); strings.Join(got, "|") != "s,013800000042,1764300000,1764300000012|a,013800000043,1764300005,1764300007345" {
		t.Errorf("log lines %q", got)
	}
}

func TestFlagValidation(t *testing.T) {
	for name, change := range map[string]func(*config){
		"no terminals":     func(c *config) { c.terminals = 0 },
		"zero rate":        func(c *config) { c.rate = 0 },
		"long prefix":      func(c *config) { c.prefix = "01380" },
		"non-digit prefix": func(c *config) { c.prefix = "01a8" },
		"index of 9 digits": func(c *config) {
			c.first = 99999999
		},
		"zero ack timeout":  func(c *config) { c.ackTimeout = 0 },
		"negative retries":  func(c *config) { c.retries = -1 },
		"retries past 8":    func(c *config) { c.retries = maxRetries + 1 },
		"zero heartbeat":    func(c *config) { c.heartbeat = 0 },
		"negative progress": func(c *config) { c.progress = -1 },
	} {
		cfg := testConfig()
		change(cfg)
		if cfg.validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := testConfig().validate(); err != nil {
		t.Errorf("defaults refused: %v", err)
	}
}

// ---------------------------------------------------------------------------------- a whole run

// fakeGateway: registration (code "C" + phone), authentication, an ack per 0x0200 / 0x0704 after
// ackDelay; it may withhold the ack of each terminal's first position (a resend must follow) and hang
// up on each terminal once, at its hangUpAt-th position, without acknowledging it (a 0x0704 must follow).
type fakeGateway struct {
	t             *testing.T
	ln            net.Listener
	ackDelay      time.Duration
	hangUpAt      int  // 0: never
	withholdFirst bool // the first copy of each terminal's first position goes unacknowledged
	deafFirst     bool // no position is acknowledged on a terminal's first connection
	deafAuth      bool // the first 0x0102 of each terminal goes unanswered (a gateway behind in a storm)

	mu         sync.Mutex
	received   map[string]map[int64]int // phone -> fix -> copies received
	positions  map[string]int           // 0x0200 frames per phone
	hungUp     map[string]bool
	ids        map[uint16]int
	kinds      map[int]int // 0x0704 kind -> batches
	logins     map[string]int
	auths      map[string]int           // 0x0102 frames per phone
	deafCopies map[string]map[int64]int // on a deaf first connection: phone -> fix -> copies
	errs       []string
}

func newFakeGateway(t *testing.T, ackDelay time.Duration, hangUpAt int, withholdFirst bool) *fakeGateway {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGateway{t: t, ln: ln, ackDelay: ackDelay, hangUpAt: hangUpAt, withholdFirst: withholdFirst,
		received:  map[string]map[int64]int{},
		positions: map[string]int{}, hungUp: map[string]bool{}, ids: map[uint16]int{}, kinds: map[int]int{},
		logins: map[string]int{}, auths: map[string]int{}, deafCopies: map[string]map[int64]int{}}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go g.serve(conn)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return g
}

func (g *fakeGateway) fail(format string, args ...any) {
	g.mu.Lock()
	g.errs = append(g.errs, fmt.Sprintf(format, args...))
	g.mu.Unlock()
}

func (g *fakeGateway) store(phone string, fix int64) {
	if g.received[phone] == nil {
		g.received[phone] = map[int64]int{}
	}
	g.received[phone][fix]++
}

func (g *fakeGateway) serve(conn net.Conn) {
	defer conn.Close()
	var wmu sync.Mutex
	write := func(frame []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		conn.Write(frame)
	}
	ack := func(f testFrame, result byte, delay time.Duration) {
		body := []byte{byte(f.seq >> 8), byte(f.seq), byte(f.msgID >> 8), byte(f.msgID), result}
		frame := appendFrame(nil, msgPlatformAck, mustBCD(f.phone), 1, body)
		if delay <= 0 {
			write(frame)
		} else {
			time.AfterFunc(delay, func() { write(frame) })
		}
	}
	r := bufio.NewReader(conn)
	login := 0
	for {
		if _, err := r.ReadBytes(0x7e); err != nil { // up to an opening 7e
			return
		}
		rest, err := r.ReadBytes(0x7e)
		if err != nil {
			return
		}
		if len(rest) == 1 { // 7e 7e
			continue
		}
		f, err := decodeTestFrame(append([]byte{0x7e}, rest...))
		if err != nil {
			g.fail("invalid frame: %v", err)
			continue
		}
		g.mu.Lock()
		g.ids[f.msgID]++
		g.mu.Unlock()
		switch f.msgID {
		case msgRegister:
			code := "C" + f.phone
			body := append([]byte{byte(f.seq >> 8), byte(f.seq), 0}, code...)
			write(appendFrame(nil, msgRegReply, mustBCD(f.phone), 1, body))
		case msgAuth:
			g.mu.Lock()
			g.auths[f.phone]++
			first := g.auths[f.phone] == 1
			g.mu.Unlock()
			if g.deafAuth && first {
				continue
			}
			if string(f.body) != "C"+f.phone {
				g.fail("%s authenticated with %q", f.phone, f.body)
				ack(f, 1, 0)
			} else {
				g.mu.Lock()
				g.logins[f.phone]++
				login = g.logins[f.phone]
				g.mu.Unlock()
				ack(f, 0, 0)
			}
		case msgLocation:
			loc, err := decodeTestLocation(f.body)
			if err != nil {
				g.fail("0x0200: %v", err)
				continue
			}
			g.mu.Lock()
			g.store(f.phone, loc.fix)
			if g.deafFirst && login == 1 {
				if g.deafCopies[f.phone] == nil {
					g.deafCopies[f.phone] = map[int64]int{}
				}
				g.deafCopies[f.phone][loc.fix]++
				g.mu.Unlock()
				continue
			}
			g.positions[f.phone]++
			n := g.positions[f.phone]
			hangUp := n == g.hangUpAt && !g.hungUp[f.phone]
			if hangUp {
				g.hungUp[f.phone] = true
			}
			g.mu.Unlock()
			if hangUp {
				return
			}
			if n > 1 || !g.withholdFirst {
				ack(f, 0, g.ackDelay)
			}
		case msgBatch:
			kind, items, err := decodeTestBatch(f.body)
			if err != nil {
				g.fail("0x0704: %v", err)
				continue
			}
			g.mu.Lock()
			g.kinds[kind]++
			for _, loc := range items {
				g.store(f.phone, loc.fix)
			}
			g.mu.Unlock()
			ack(f, 0, g.ackDelay)
		case msgHeartbeat:
			ack(f, 0, 0)
		default:
			g.fail("unexpected message %04x", f.msgID)
		}
	}
}

func mustBCD(phone string) []byte {
	b, err := hex.DecodeString(phone)
	if err != nil {
		panic(err)
	}
	return b
}

func TestRunAgainstAFakeGateway(t *testing.T) {
	gw := newFakeGateway(t, 50*time.Millisecond, 4, true)
	dir := t.TempDir()
	cfg := &config{host: "127.0.0.1", port: gw.ln.Addr().(*net.TCPAddr).Port, prefix: "0138", first: 1, terminals: 3,
		rate: 15, duration: 2, drain: 10, ackTimeout: 0.3, retries: 3, reconnectMin: 0.05, reconnectMax: 0.2, heartbeat: 30,
		connectRamp: 100, batchItems: 20, logPath: filepath.Join(dir, "log")}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	codes := &codeStore{codes: map[string]string{}}
	wakeups := writerWakeups.Load()
	began := time.Now()
	result, err := run(cfg, codes, make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(began)
	wakeups = writerWakeups.Load() - wakeups
	gw.mu.Lock()
	defer gw.mu.Unlock()
	if len(gw.errs) > 0 {
		t.Fatalf("the gateway saw: %s", strings.Join(gw.errs, "; "))
	}
	t.Logf("stats %+v; %d writer wake-ups in %v; gateway ids %v", result, wakeups, elapsed, gw.ids)

	// 3 terminals, 0.2 s interval, 2 s: 10 positions each (due 0 .. 1.8 s + phase < 2 s)
	if result.Generated < 27 || result.Generated > 30 {
		t.Errorf("generated %d, want about 30", result.Generated)
	}
	if result.Sent != result.Generated || result.Acked != result.Sent || result.Unacked != 0 {
		t.Errorf("everything generated must be sent and acknowledged: %+v", result)
	}
	if result.Registrations != 3 || len(codes.codes) != 3 || codes.codes["013800000002"] != "C013800000002" {
		t.Errorf("registrations %d, codes %v", result.Registrations, codes.codes)
	}
	if result.Resent < 3 {
		t.Errorf("each terminal's first position had its ack withheld: %d resent", result.Resent)
	}
	if result.Connects < 6 || result.Authenticated < 6 || gw.kinds[1] < 3 || result.BacklogUploaded < 3 {
		t.Errorf("each terminal was hung up on once: connects %d, logins %d, 0x0704 kinds %v, backlog %d",
			result.Connects, result.Authenticated, gw.kinds, result.BacklogUploaded)
	}
	if result.CPUSeconds <= 0 || result.WallSeconds < 2 || result.AckP50Ms < 40 {
		t.Errorf("cpu %v wall %v ack p50 %v ms (acks come 50 ms late)", result.CPUSeconds, result.WallSeconds, result.AckP50Ms)
	}
	// no busy waiting: a writer wakes for its reports, acks of batches, resends and once a second
	if limit := int64(40 * cfg.terminals * int(elapsed/time.Second+1)); wakeups > limit {
		t.Errorf("%d writer wake-ups in %v for %d terminals (limit %d): busy waiting", wakeups, elapsed, cfg.terminals, limit)
	}
	if elapsed > 4*time.Second {
		t.Errorf("the run took %v after 2 s of generating: terminals did not hang up once settled", elapsed)
	}

	// reconciliation: each position once "s", once "a", and every acknowledged one reached the gateway
	data, err := os.ReadFile(cfg.logPath)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[string]bool{"s": {}, "a": {}}
	sentAt := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.Split(line, ",")
		if len(parts) != 4 || (parts[0] != "s" && parts[0] != "a") || len(parts[1]) != 12 {
			t.Fatalf("log line %q", line)
		}
		key := parts[1] + "," + parts[2]
		if seen[parts[0]][key] {
			t.Errorf("%s logged twice as %s", key, parts[0])
		}
		seen[parts[0]][key] = true
		// the event time: a position is acknowledged after it was first sent, both within the run
		at, _ := strconv.ParseInt(parts[3], 10, 64)
		if at < began.UnixMilli() || at > time.Now().UnixMilli() {
			t.Errorf("log line %q: event time outside the run", line)
		}
		if parts[0] == "s" {
			sentAt[key] = at
		} else if first, ok := sentAt[key]; ok && at < first {
			t.Errorf("log line %q: acknowledged %d ms before it was first sent", line, first-at)
		}
		fix, _ := strconv.ParseInt(parts[2], 10, 64)
		if parts[0] == "a" && gw.received[parts[1]][fix] == 0 {
			t.Errorf("%s acknowledged but never received", key)
		}
	}
	if int64(len(seen["s"])) != result.Sent || int64(len(seen["a"])) != result.Acked {
		t.Errorf("log: %d s and %d a lines, stats %d sent %d acked", len(seen["s"]), len(seen["a"]), result.Sent, result.Acked)
	}
	var received []string
	for phone, fixes := range gw.received {
		for fix := range fixes {
			received = append(received, phone+","+strconv.FormatInt(fix, 10))
		}
	}
	sort.Strings(received)
	for _, key := range received {
		if !seen["s"][key] {
			t.Errorf("the gateway received %s, which the log never shows as sent", key)
		}
	}
}

func TestAGatewayThatNeverAcksIsLeftAfterTheLastResendAndGetsTheBacklog(t *testing.T) {
	// JT/T 808 with -retries 2 and T = 0.1 s: a position is sent, resent after 0.1 s and again 0.2 s
	// later; 0.6 s after that the terminal hangs up, logs in again and uploads all it owes as 0x0704
	gw := newFakeGateway(t, 0, 0, false)
	gw.deafFirst = true
	cfg := &config{host: "127.0.0.1", port: gw.ln.Addr().(*net.TCPAddr).Port, prefix: "0138", first: 1, terminals: 2,
		rate: 10, duration: 1.5, drain: 10, ackTimeout: 0.1, retries: 2, reconnectMin: 0.05, reconnectMax: 0.2,
		heartbeat: 30, connectRamp: 100, batchItems: 20}
	result, err := run(cfg, &codeStore{codes: map[string]string{}}, make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	gw.mu.Lock()
	defer gw.mu.Unlock()
	t.Logf("stats %+v; logins %v; 0x0704 kinds %v", result, gw.logins, gw.kinds)
	if len(gw.errs) > 0 {
		t.Fatalf("the gateway saw: %s", strings.Join(gw.errs, "; "))
	}
	if result.LinkTimeouts != 2 || gw.logins["013800000001"] != 2 || gw.logins["013800000002"] != 2 {
		t.Errorf("each terminal must hang up once and log in again: %d link timeouts, logins %v", result.LinkTimeouts, gw.logins)
	}
	for phone, fixes := range gw.deafCopies {
		for fix, copies := range fixes {
			if copies > 3 {
				t.Errorf("%s fix %d sent %d times on the deaf connection: more than 1 + 2 resends", phone, fix, copies)
			}
		}
	}
	if result.Acked != result.Generated || result.Unacked != 0 || result.BacklogUploaded == 0 || gw.kinds[1] == 0 {
		t.Errorf("what the deaf connection never acknowledged must be uploaded as backlog and acknowledged: %+v", result)
	}
}

func TestRunEndsPromptlyOnceSettledWithoutBusyWaiting(t *testing.T) {
	// acks 400 ms late, reports every 200 ms: after the last report a terminal waits for its acks with
	// nothing else to do; it must sleep meanwhile and hang up as soon as the last ack is in
	gw := newFakeGateway(t, 400*time.Millisecond, 0, false)
	cfg := &config{host: "127.0.0.1", port: gw.ln.Addr().(*net.TCPAddr).Port, prefix: "0138", first: 1, terminals: 2,
		rate: 10, duration: 0.6, drain: 10, ackTimeout: 5, retries: 3, reconnectMin: 0.05, reconnectMax: 0.2, heartbeat: 30,
		connectRamp: 100, batchItems: 20}
	wakeups := writerWakeups.Load()
	began := time.Now()
	result, err := run(cfg, &codeStore{codes: map[string]string{}}, make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(began)
	wakeups = writerWakeups.Load() - wakeups
	t.Logf("%d writer wake-ups, %v, stats %+v", wakeups, elapsed, result)
	if result.Acked != result.Generated || result.Generated < 5 || result.Resent != 0 {
		t.Errorf("stats %+v", result)
	}
	if wakeups > 60 {
		t.Errorf("%d writer wake-ups for %d positions: busy waiting", wakeups, result.Generated)
	}
	// 0.02 s ramp + 0.6 s + the last acks 0.4 s later; a writer that slept through its last ack would
	// notice only at its next 1 s check
	if elapsed > 1400*time.Millisecond {
		t.Errorf("the run took %v: terminals did not hang up when their last ack came", elapsed)
	}
}

func TestUnreachableGatewayShowsInTheStats(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	cfg := &config{host: "127.0.0.1", port: port, prefix: "0138", first: 1, terminals: 2, rate: 10, duration: 0.6,
		drain: 0.3, ackTimeout: 1, retries: 3, reconnectMin: 0.05, reconnectMax: 0.1, heartbeat: 30, connectRamp: 100, batchItems: 20}
	result, err := run(cfg, &codeStore{codes: map[string]string{}}, make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	// 2 terminals, a report every 0.2 s for 0.6 s: 6 positions due (a phase of exactly 0 would make 8)
	if result.Generated < 6 || result.Sent != 0 || result.Acked != 0 || result.Connects != 0 {
		t.Errorf("positions that never got through must show as generated and not sent: %+v", result)
	}
	if result.WallSeconds > 2 {
		t.Errorf("the run took %.1f s: the drain timeout (0.3 s) must end it", result.WallSeconds)
	}
}

func TestHeartbeatsAreCountedAsAnsweredAndTheOnlineGaugeFollowsTheSessions(t *testing.T) {
	gw := newFakeGateway(t, 0, 0, false)
	cfg := &config{host: "127.0.0.1", port: gw.ln.Addr().(*net.TCPAddr).Port, prefix: "0138", first: 1, terminals: 4,
		rate: 1e-6, duration: 1.5, drain: 1, ackTimeout: 1, retries: 3, reconnectMin: 0.05, reconnectMax: 0.2,
		heartbeat: 0.2, connectRamp: 100, batchItems: 20}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	online := make(chan int64, 1)
	go func() { // halfway through, every terminal is logged in
		time.Sleep(time.Second)
		online <- atomic.LoadInt64(&st.Online)
	}()
	result, err := run(cfg, &codeStore{codes: map[string]string{}}, make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	if during := <-online; during != 4 {
		t.Errorf("%d terminals online halfway, want 4", during)
	}
	if result.Online != 0 {
		t.Errorf("%d still online after the run", result.Online)
	}
	// a heartbeat each time 0.2 s of silence passed: about 7 per terminal in 1.5 s; each terminal's last one may be
	// sent as the run ends and hung up on before its answer
	if result.Heartbeats < 5*int64(cfg.terminals) || result.HeartbeatAcks > result.Heartbeats || result.HeartbeatAcks < result.Heartbeats-4 {
		t.Errorf("heartbeats %d, answered %d", result.Heartbeats, result.HeartbeatAcks)
	}
	if result.Sent != 0 {
		t.Errorf("no position was due, %d sent", result.Sent)
	}
}

func TestProgressLinesCarryTheCountersSoFar(t *testing.T) {
	st = stats{}
	atomic.StoreInt64(&st.Online, 3)
	atomic.StoreInt64(&st.HeartbeatAcks, 7)
	var out bytes.Buffer
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() { reportProgress(&out, time.Now(), 20*time.Millisecond, done); close(finished) }()
	time.Sleep(70 * time.Millisecond)
	close(done)
	<-finished
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 2 {
		t.Fatalf("%d progress lines in 70 ms at one per 20 ms: %q", len(lines), out.String())
	}
	var last progressLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Online != 3 || last.HeartbeatAcks != 7 || last.T <= 0 {
		t.Errorf("progress line %+v", last)
	}
	st = stats{}
}

func TestAnUnansweredLoginIsSentAgainOnTheSameConnection(t *testing.T) {
	gw := newFakeGateway(t, 0, 0, false)
	gw.deafAuth = true
	codes := &codeStore{codes: map[string]string{"013800000001": "C013800000001", "013800000002": "C013800000002"}}
	cfg := &config{host: "127.0.0.1", port: gw.ln.Addr().(*net.TCPAddr).Port, prefix: "0138", first: 1, terminals: 2,
		rate: 1e-6, duration: 1, drain: 1, ackTimeout: 0.3, retries: 3, reconnectMin: 0.05, reconnectMax: 0.2,
		heartbeat: 30, connectRamp: 100, batchItems: 20}
	result, err := run(cfg, codes, make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	gw.mu.Lock()
	defer gw.mu.Unlock()
	// each terminal: one connection, its 0x0102 unanswered once and answered when sent again 0.3 s later
	if result.Connects != 2 || result.Authenticated != 2 || result.LoginResends != 2 || result.AuthFailures != 0 {
		t.Errorf("connects %d, logins %d, login resends %d, failures %d", result.Connects, result.Authenticated,
			result.LoginResends, result.AuthFailures)
	}
	if gw.auths["013800000001"] != 2 || gw.auths["013800000002"] != 2 {
		t.Errorf("0x0102 frames per phone %v, want 2 each", gw.auths)
	}
}
