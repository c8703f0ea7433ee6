// fleet-loadgen: a cheap JT/T 808 load generator for benchmarks (docs/performance.md).
//
// Thousands of terminals, one TCP connection each, reporting 0x0200 positions at a fixed rate, each
// frame written straight into the connection's output buffer (serial, fix time, a little movement):
// no codec, no allocation per report. Real protocol behaviour: registration (0x0100) when no auth code
// is known, authentication (0x0102), an acknowledgement (0x8001, matched by serial and message id)
// awaited for every position, resends of the same serial on the JT/T 808 schedule (-retries N, the
// terminal parameter 0x0003; timeouts T(1) = T, T(n+1) = T(n) x (n+1): T, 2T, 6T, 24T), and once the
// last resend has gone unanswered for its timeout the link is taken for broken: the terminal hangs up,
// reconnects with backoff, and uploads everything unacknowledged, or fallen due while offline, after the
// next login as 0x0704 backlog batches (kind 1, one in flight). Platform frames with a bad escape, checksum or length are dropped.
//
// Reconciliation log (-log): one line per event, "s,<phone>,<fix unix s>,<unix ms>" when a position is first
// sent and "a,<phone>,<fix unix s>,<unix ms>" when it is acknowledged (the last field: when it happened), so a
// benchmark can prove that every acknowledged position is stored and time what follows the acknowledgement. Stats (-stats) as JSON at the end, including the CPU this process used.
//
// Built by simulator/loadgen.py (go build, on first use, and by scripts/install.sh) into
// var/bin/fleet-loadgen; run through `fleet loadgen` or benchmarks/ingest_bench.py --source loadgen.
// Standard library only. Tests: main_test.go (go test, run by scripts/test.sh), and with the project's
// Python codec and the real stack in tests/unit/simulator/test_loadgen.py and
// tests/integration/test_loadgen_pipeline.py.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	msgHeartbeat   = 0x0002
	msgRegister    = 0x0100
	msgAuth        = 0x0102
	msgLocation    = 0x0200
	msgBatch       = 0x0704
	msgPlatformAck = 0x8001
	msgRegReply    = 0x8100
	maxRetries     = 8 // -retries: 8! x T is already hours
)

type config struct {
	host, prefix, authPath, logPath, statsPath string
	sources                                    []string
	port, terminals, first, batchItems         int
	retries                                    int32 // resends of one message before the link is taken for broken
	rate, duration, drain, ackTimeout          float64
	reconnectMin, reconnectMax, heartbeat      float64
	connectRamp                                float64
	progress                                   float64 // seconds between two progress lines on stderr; 0: none
	fixStart                                   int64   // unix seconds of the first fix
}

type stats struct {
	Terminals       int64   `json:"terminals"`
	Authenticated   int64   `json:"authenticated"` // successful logins (0x0102 acknowledged with result 0)
	Generated       int64   `json:"generated"`     // positions due in the generating period, sent or not
	Sent            int64   `json:"sent"`          // positions sent at least once
	Acked           int64   `json:"acked"`
	Resent          int64   `json:"resent"`
	LinkTimeouts    int64   `json:"link_timeouts"` // hang-ups after the last resend went unanswered
	BacklogUploaded int64   `json:"backlog_uploaded"`
	BacklogBatches  int64   `json:"backlog_batches"`
	Unacked         int64   `json:"unacked"`
	Connects        int64   `json:"connects"`
	Registrations   int64   `json:"registrations"`
	AuthFailures    int64   `json:"auth_failures"`
	LoginResends    int64   `json:"login_resends"` // registrations and authentications sent again, unanswered in time
	Rejected        int64   `json:"rejected"`
	Heartbeats      int64   `json:"heartbeats"`
	HeartbeatAcks   int64   `json:"heartbeat_acks"` // heartbeats answered 0x8001 with result 0
	Online          int64   `json:"online"`         // terminals logged in now (at the end: still connected)
	BadFrames       int64   `json:"bad_frames"`     // platform frames dropped: bad escape, checksum or length
	AckP50Ms        float64 `json:"ack_p50_ms"`
	AckP99Ms        float64 `json:"ack_p99_ms"`
	AckMaxMs        float64 `json:"ack_max_ms"`
	CPUSeconds      float64 `json:"cpu_s"`
	UserSeconds     float64 `json:"user_s"`
	SysSeconds      float64 `json:"sys_s"` // mostly the kernel's TCP work for our writes and reads (loopback)
	WallSeconds     float64 `json:"wall_s"`
}

var st stats

// ---------------------------------------------------------------------------------- reconciliation log

type logEvent struct {
	kind byte
	term int32
	fix  int64
	at   int64 // unix milliseconds of the event
}

type eventLog struct {
	ch     chan logEvent
	done   chan struct{}
	phones []string
}

func newEventLog(path string, phones []string) (*eventLog, error) {
	l := &eventLog{ch: make(chan logEvent, 65536), done: make(chan struct{}), phones: phones}
	if path == "" {
		go func() {
			for range l.ch {
			}
			close(l.done)
		}()
		return l, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	go func() {
		w := bufio.NewWriterSize(f, 1<<20)
		line := make([]byte, 0, 64)
		for ev := range l.ch {
			line = appendLogLine(line[:0], ev.kind, l.phones[ev.term], ev.fix, ev.at)
			w.Write(line)
		}
		w.Flush()
		f.Close()
		close(l.done)
	}()
	return l, nil
}

func (l *eventLog) close() { close(l.ch); <-l.done }

// appendLogLine: "<kind>,<phone>,<fix unix seconds>,<event unix ms>\n" (simulator/loadgen.py read_log parses it).
func appendLogLine(dst []byte, kind byte, phone string, fix, at int64) []byte {
	dst = append(dst, kind, ',')
	dst = append(dst, phone...)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, fix, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, at, 10)
	return append(dst, '\n')
}

// ---------------------------------------------------------------------------------- ack latency histogram

// histogram: 1 ms buckets below 64 ms, then 64 buckets per doubling (within 1.6 %) up to ~70 minutes;
// acks under overload take minutes, and a quantile must say how many.
type histogram struct {
	mu      sync.Mutex
	buckets [histLinear + histDoublings*histLinear]int64
	max     float64
}

const (
	histLinear    = 64 // 1 ms buckets below this, and sub-buckets per doubling above it
	histShift     = 6  // log2(histLinear)
	histDoublings = 17 // 64 ms << 16 .. << 17: about 70 minutes
)

// histBucket: the bucket of a latency of ms milliseconds (longer than the last bucket: the last).
func histBucket(ms float64) int {
	i := int(ms)
	if i < histLinear {
		return max(i, 0)
	}
	k := bits.Len(uint(i)) - 1 // 2^k <= i < 2^(k+1), k >= histShift
	b := histLinear + (k-histShift)*histLinear + (i>>(k-histShift) - histLinear)
	return min(b, histLinear+histDoublings*histLinear-1)
}

// histMid: the middle of bucket b, in milliseconds.
func histMid(b int) float64 {
	if b < histLinear {
		return float64(b) + 0.5
	}
	k := (b-histLinear)/histLinear + histShift
	sub := (b - histLinear) % histLinear
	width := 1 << (k - histShift)
	return float64((histLinear+sub)*width) + float64(width)/2
}

func (h *histogram) add(d time.Duration) {
	ms := float64(d) / 1e6
	i := histBucket(ms)
	h.mu.Lock()
	h.buckets[i]++
	if ms > h.max {
		h.max = ms
	}
	h.mu.Unlock()
}

func (h *histogram) quantile(q float64) float64 {
	var total int64
	for _, n := range h.buckets {
		total += n
	}
	if total == 0 {
		return 0
	}
	want := int64(q * float64(total))
	var seen int64
	for i, n := range h.buckets {
		seen += n
		if seen > want {
			return min(histMid(i), h.max)
		}
	}
	return h.max
}

var ackLatency histogram

func (h *histogram) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buckets = [len(h.buckets)]int64{}
	h.max = 0
}

// ---------------------------------------------------------------------------------- frames

func bcdPhone(phone string) []byte {
	p := strings.Repeat("0", 12-len(phone)) + phone
	out := make([]byte, 6)
	for i := 0; i < 6; i++ {
		out[i] = (p[2*i]-'0')<<4 | (p[2*i+1] - '0')
	}
	return out
}

// appendFrame escapes header+body+checksum into dst between 7e delimiters.
func appendFrame(dst []byte, msgID uint16, phone []byte, seq uint16, body []byte) []byte {
	var head [12]byte
	head[0], head[1] = byte(msgID>>8), byte(msgID)
	head[2], head[3] = byte(len(body)>>8), byte(len(body))
	copy(head[4:10], phone)
	head[10], head[11] = byte(seq>>8), byte(seq)
	var sum byte
	dst = append(dst, 0x7e)
	put := func(b byte) {
		switch b {
		case 0x7e:
			dst = append(dst, 0x7d, 0x02)
		case 0x7d:
			dst = append(dst, 0x7d, 0x01)
		default:
			dst = append(dst, b)
		}
	}
	for _, b := range head {
		sum ^= b
		put(b)
	}
	for _, b := range body {
		sum ^= b
		put(b)
	}
	put(sum)
	return append(dst, 0x7e)
}

func bcd2(v int) byte { return byte((v/10)<<4 | v%10) }

var beijing = time.FixedZone("UTC+8", 8*3600)

// locationBody writes a 0x0200 body (with mileage, satellites and signal items) for fix time `fix`.
func locationBody(dst []byte, term, k int, fix int64) []byte {
	t := time.Unix(fix, 0).In(beijing)
	lat := uint32(39900000 + (term%1000)*200 + (k%600)*10)
	lng := uint32(116400000 + (term/1000)*200 + (k%600)*10)
	speed := uint16(300 + (k % 400))
	dir := uint16((k * 7) % 360)
	mileage := uint32(10000 + k)
	b := dst
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 3) // alarm flags, status (ACC on, positioned)
	b = append(b, byte(lat>>24), byte(lat>>16), byte(lat>>8), byte(lat))
	b = append(b, byte(lng>>24), byte(lng>>16), byte(lng>>8), byte(lng))
	b = append(b, 0, 50, byte(speed>>8), byte(speed), byte(dir>>8), byte(dir))
	b = append(b, bcd2(t.Year()%100), bcd2(int(t.Month())), bcd2(t.Day()), bcd2(t.Hour()), bcd2(t.Minute()), bcd2(t.Second()))
	b = append(b, 0x01, 4, byte(mileage>>24), byte(mileage>>16), byte(mileage>>8), byte(mileage))
	b = append(b, 0x31, 1, 12, 0x30, 1, 25)
	return b
}

type reply struct {
	msgID, ackSeq, ackMsgID uint16
	result                  byte
	code                    string
}

// frameReader splits 7e-delimited frames out of a byte stream and decodes the replies we need. Every
// stretch between two 7e is a candidate (as protocols/jt808/framing.py FrameReader); one that is not a
// valid JT/T 808 frame (bad escape, checksum or body length) is dropped and counted (bad_frames):
// garbage must never acknowledge a position.
type frameReader struct {
	buf []byte
}

func (r *frameReader) feed(data []byte, out []reply) []reply {
	r.buf = append(r.buf, data...)
	for {
		start := -1
		for i, b := range r.buf {
			if b == 0x7e {
				start = i
				break
			}
		}
		if start < 0 {
			r.buf = r.buf[:0]
			return out
		}
		end := -1
		for i := start + 1; i < len(r.buf); i++ {
			if r.buf[i] == 0x7e {
				end = i
				break
			}
		}
		if end < 0 {
			r.buf = append(r.buf[:0], r.buf[start:]...)
			return out
		}
		raw := r.buf[start+1 : end]
		r.buf = r.buf[end:] // the closing 7e may open the next frame (7e A 7e B 7e)
		if len(raw) == 0 {
			continue
		}
		rep, ok, known := parseReply(raw)
		if !ok {
			atomic.AddInt64(&st.BadFrames, 1)
		} else if known {
			out = append(out, rep)
		}
	}
}

// unescape undoes the JT/T 808 escaping (7d 02 -> 7e, 7d 01 -> 7d); false for any other 7d sequence.
func unescape(raw []byte) ([]byte, bool) {
	frame := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] != 0x7d {
			frame = append(frame, raw[i])
			continue
		}
		if i+1 >= len(raw) || (raw[i+1] != 0x01 && raw[i+1] != 0x02) {
			return nil, false
		}
		frame = append(frame, 0x7c+raw[i+1])
		i++
	}
	return frame, true
}

// parseReply decodes the content of one frame (between its 7e, still escaped). ok: a valid frame;
// known: a reply this generator uses (0x8001 or 0x8100), in rep.
func parseReply(raw []byte) (rep reply, ok, known bool) {
	frame, valid := unescape(raw)
	if !valid || len(frame) < 13 {
		return reply{}, false, false
	}
	var sum byte
	for _, b := range frame[:len(frame)-1] {
		sum ^= b
	}
	if sum != frame[len(frame)-1] {
		return reply{}, false, false
	}
	msgID := uint16(frame[0])<<8 | uint16(frame[1])
	attr := uint16(frame[2])<<8 | uint16(frame[3])
	bodyAt := 12
	if attr&0x4000 != 0 { // 2019: protocol version byte and a 10-byte BCD phone
		bodyAt = 17
	}
	if attr&0x2000 != 0 { // sub-package fields
		bodyAt += 4
	}
	if len(frame) != bodyAt+int(attr&0x3ff)+1 {
		return reply{}, false, false
	}
	body := frame[bodyAt : len(frame)-1]
	switch msgID {
	case msgPlatformAck:
		if len(body) < 5 {
			return reply{}, false, false
		}
		return reply{msgID, uint16(body[0])<<8 | uint16(body[1]), uint16(body[2])<<8 | uint16(body[3]), body[4], ""}, true, true
	case msgRegReply:
		if len(body) < 3 {
			return reply{}, false, false
		}
		return reply{msgID, uint16(body[0])<<8 | uint16(body[1]), msgRegister, body[2], string(body[3:])}, true, true
	}
	return reply{}, true, false
}

// ---------------------------------------------------------------------------------- terminals

type pending struct {
	k       int32
	firstAt time.Time // first send on this connection (ack latency)
	sentAt  time.Time
	sends   int32
	batch   []int32 // a 0x0704: the positions it carries
}

func (p *pending) msgID() uint16 {
	if p.batch != nil {
		return msgBatch
	}
	return msgLocation
}

type terminal struct {
	idx          int
	phone        string
	bcd          []byte
	cfg          *config
	log          *eventLog
	codes        *codeStore
	rng          *rand.Rand
	seq          uint16
	next         int32 // next position index to generate
	mu           sync.Mutex
	owed         []int32             // generated, not yet sent on this connection (backlog first, in order)
	wait         map[uint16]*pending // serial -> awaiting its 0x8001
	backlogBatch bool                // a 0x0704 is in flight
	everSent     map[int32]bool      // sent at least once and not acknowledged yet
	connectedAt  int32               // positions before this index are owed from earlier: 0x0704 backlog
	loggedIn     atomic.Bool
	authed       bool // the current session logged in (run's reconnect backoff starts again)
	kick         chan struct{}
}

func (t *terminal) fixOf(k int32) int64 { return t.cfg.fixStart + int64(k)*t.cfg.fixStep() }

// fixStep: whole seconds between a terminal's fix times (BCD times have no fraction): at least 1 s, so
// a terminal reporting faster than once a second has fix times running ahead of the wall clock.
func (c *config) fixStep() int64 { return int64(max(1, math.Ceil(c.interval()))) }

func (c *config) interval() float64 { return float64(c.terminals) / c.rate }

func (c *config) intervalDuration() time.Duration {
	return time.Duration(c.interval() * float64(time.Second))
}

// genEnd: when the generating period that begins at start ends.
func (c *config) genEnd(start time.Time) time.Time {
	return start.Add(time.Duration(c.duration * float64(time.Second)))
}

// resendAfter: how long a message sent `sends` times waits for its ack after its latest send: JT/T 808's
// T(1) = T, T(n+1) = T(n) x (n+1), so T, 2T, 6T, 24T (sends! x T). After the first send and each of the
// cfg.retries resends the message is sent again when that runs out; after the last, the link is broken.
func (c *config) resendAfter(sends int32) time.Duration {
	d := time.Duration(c.ackTimeout * float64(time.Second))
	for n := int32(2); n <= min(sends, maxRetries+1); n++ {
		d *= time.Duration(n)
	}
	return d
}

// exhausted: p has had all its resends (it is not sent again; its timeout running out breaks the link).
func (c *config) exhausted(p *pending) bool { return p.sends > c.retries }

type codeStore struct {
	mu    sync.Mutex
	codes map[string]string
	dirty bool
}

func (c *codeStore) get(phone string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.codes[phone]
}

func (c *codeStore) put(phone, code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if code == "" {
		delete(c.codes, phone)
	} else {
		c.codes[phone] = code
	}
	c.dirty = true
}

// run keeps a session up until stop closes; positions are generated on the terminal's own clock
// until genStop closes, whether connected or not (a real terminal's blind-area store).
func (t *terminal) run(start time.Time, phase time.Duration, genStop, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	attempt := 0
	for {
		select {
		case <-stop:
			return
		default:
		}
		t.authed = false
		err := t.session(start, phase, genStop, stop)
		t.disconnected()
		if err == nil {
			return
		}
		if t.authed { // a session that logged in: the next reconnect starts from the shortest delay again
			attempt = 0
		}
		attempt++
		delay := t.cfg.reconnectMin * float64(int(1)<<min(attempt-1, 10))
		if delay > t.cfg.reconnectMax {
			delay = t.cfg.reconnectMax
		}
		delay *= 0.5 + t.rng.Float64()
		select {
		case <-stop:
			return
		case <-time.After(time.Duration(delay * float64(time.Second))):
		}
	}
}

// generate queues the positions due by `now`: position k falls due at start+phase+k*interval, up to the
// end of the generating period (start+duration), on the terminal's own clock whether it is connected
// or not (a real terminal's blind-area store): one offline at the end uploads them when it is back.
func (t *terminal) generate(start time.Time, phase time.Duration, now time.Time) {
	if end := t.cfg.genEnd(start); now.After(end) {
		now = end
	}
	since := now.Sub(start.Add(phase))
	if since < 0 { // before the first report time (a truncated division would make position 0 due early)
		return
	}
	due := int32(since/t.cfg.intervalDuration()) + 1
	t.mu.Lock()
	for t.next < due {
		t.owed = append(t.owed, t.next)
		t.next++
	}
	t.mu.Unlock()
}

// connected: a login succeeded at `now`. What fell due before it (while offline, or unacknowledged on
// an earlier connection) goes up as 0x0704 backlog; what falls due from now on as 0x0200.
func (t *terminal) connected(start time.Time, phase time.Duration, now time.Time) {
	t.generate(start, phase, now)
	t.mu.Lock()
	t.connectedAt = t.next
	t.mu.Unlock()
}

func (t *terminal) disconnected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	var back []int32
	for _, p := range t.wait {
		if p.batch != nil {
			back = append(back, p.batch...)
		} else {
			back = append(back, p.k)
		}
	}
	t.wait = map[uint16]*pending{}
	t.backlogBatch = false
	if len(back) > 0 {
		sort.Slice(back, func(i, j int) bool { return back[i] < back[j] })
		t.owed = mergeSorted(back, t.owed)
	}
}

func mergeSorted(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func (t *terminal) nextSeq() uint16 { s := t.seq; t.seq++; return s }

// ipBindAddressNoPort is Linux's IP_BIND_ADDRESS_NO_PORT (include/uapi/linux/in.h), not in package syscall.
const ipBindAddressNoPort = 24

func (t *terminal) dial() (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	if len(t.cfg.sources) > 0 {
		src := t.cfg.sources[t.idx%len(t.cfg.sources)] // in turn: each address holds as few sockets as can be
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
		// bind() with port 0 picks the port at once, searching the whole range for one no socket of that address
		// holds: 61 ms a call with 14,000 sockets on it, most of the machine's CPU in a 100,000-terminal run. With
		// this option the port is picked at connect(), for this destination only (a port may be reused towards
		// another). Where the option is unknown, bind as before. connect()'s own search still grows with the
		// sockets one (source, destination) pair holds: spread over several sources, each holds fewer.
		d.Control = func(_, _ string, raw syscall.RawConn) error {
			raw.Control(func(fd uintptr) {
				syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
			})
			return nil
		}
	}
	return d.Dial("tcp", net.JoinHostPort(t.cfg.host, strconv.Itoa(t.cfg.port)))
}

var (
	errStopped    = errors.New("stopped")
	errLinkBroken = errors.New("the last resend went unanswered: link broken")
)

func (t *terminal) session(start time.Time, phase time.Duration, genStop, stop <-chan struct{}) error {
	conn, err := t.dial()
	if err != nil {
		return err
	}
	atomic.AddInt64(&st.Connects, 1)
	replies := make(chan reply, 64)
	readErr := make(chan error, 1)
	readerDone := make(chan struct{})
	// the reader is done with acks before disconnected() takes what is still unacknowledged back, and
	// before the run closes the log
	defer func() { conn.Close(); <-readerDone }()
	go func() {
		defer close(readerDone)
		var fr frameReader
		buf := make([]byte, 4096)
		var out []reply
		for {
			n, err := conn.Read(buf)
			if n > 0 {
				out = fr.feed(buf[:n], out[:0])
				wake := false
				for _, r := range out {
					if r.msgID == msgPlatformAck && (r.ackMsgID == msgLocation || r.ackMsgID == msgBatch) {
						wake = t.acknowledged(r) || wake
						continue
					}
					if r.msgID == msgPlatformAck && r.ackMsgID == msgHeartbeat && t.loggedIn.Load() {
						if r.result == 0 {
							atomic.AddInt64(&st.HeartbeatAcks, 1)
						}
						continue
					}
					if !t.loggedIn.Load() {
						select {
						case replies <- r:
						default: // login gave up: nobody reads them
						}
					} // later replies (heartbeat acks, commands) are not needed here
				}
				if wake || (closed(genStop) && t.settled()) { // after the run: hang up once settled
					select {
					case t.kick <- struct{}{}:
					default:
					}
				}
			}
			if err != nil {
				readErr <- err
				close(replies)
				return
			}
		}
	}()
	if err := t.login(conn, replies); err != nil {
		return err
	}
	t.connected(start, phase, time.Now())
	t.authed = true
	t.loggedIn.Store(true)
	defer t.loggedIn.Store(false)
	atomic.AddInt64(&st.Authenticated, 1)
	atomic.AddInt64(&st.Online, 1)
	defer atomic.AddInt64(&st.Online, -1)
	interval := t.cfg.intervalDuration()
	first, end := start.Add(phase), t.cfg.genEnd(start)
	// wake at this terminal's next report time; also checks resends and the backlog
	tick := time.NewTimer(time.Second)
	defer tick.Stop()
	out := make([]byte, 0, 4096)
	lastSend := time.Now()
	heartbeat := time.Duration(t.cfg.heartbeat * float64(time.Second))
	for {
		writerWakeups.Add(1)
		now := time.Now()
		if t.linkBroken(now) {
			atomic.AddInt64(&st.LinkTimeouts, 1)
			return errLinkBroken
		}
		t.generate(start, phase, now)
		out = t.fill(out[:0], now)
		if len(out) == 0 && now.Sub(lastSend) >= heartbeat {
			out = appendFrame(out, msgHeartbeat, t.bcd, t.nextSeq(), nil)
			atomic.AddInt64(&st.Heartbeats, 1)
		}
		if len(out) > 0 {
			conn.SetWriteDeadline(now.Add(60 * time.Second))
			if _, err := conn.Write(out); err != nil {
				return err
			}
			lastSend = now
		}
		// Sleep until the next thing this terminal has to do: its next report, a resend (or the link given up
		// after the last one), or a heartbeat once it has been silent `heartbeat` long; the reader kicks it for
		// acks. A hundred thousand idle terminals then wake a few thousand times a second, not 100,000 times.
		wait := time.Until(lastSend.Add(heartbeat))
		if closed(genStop) {
			if t.settled() {
				return nil
			}
		} else {
			t.mu.Lock()
			due := first.Add(time.Duration(t.next) * interval)
			t.mu.Unlock()
			if !due.After(end) {
				wait = min(wait, time.Until(due))
			}
		}
		if resend, ok := t.nextResend(); ok {
			wait = min(wait, time.Until(resend))
		}
		tick.Reset(max(wait, 0))
		select {
		case <-stop:
			return errStopped
		case err := <-readErr:
			return err
		case <-t.kick:
		case <-tick.C:
		}
	}
}

// writerWakeups counts the writer loops' iterations of all terminals (tests: no busy waiting).
var writerWakeups atomic.Int64

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// linkBroken: a message has had all its resends and the timeout after the last ran out (JT/T 808: the
// terminal takes the connection for broken, reconnects, and uploads what is unacknowledged as backlog).
func (t *terminal) linkBroken(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.wait {
		if t.cfg.exhausted(p) && now.Sub(p.sentAt) >= t.cfg.resendAfter(p.sends) {
			return true
		}
	}
	return false
}

// nextResend: when the earliest message awaiting its ack is due to be sent again (or, after its last
// resend, breaks the link).
func (t *terminal) nextResend() (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var next time.Time
	for _, p := range t.wait {
		if at := p.sentAt.Add(t.cfg.resendAfter(p.sends)); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next, !next.IsZero()
}

// settled: nothing owed and nothing awaiting an ack (the terminal can hang up after the run).
func (t *terminal) settled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.owed) == 0 && len(t.wait) == 0
}

func (t *terminal) login(conn net.Conn, replies <-chan reply) error {
	code := t.codes.get(t.phone)
	// send writes a registration or authentication and awaits its answer, sending it again (same serial) on the
	// schedule of any other message (JT/T 808-2019 §4.4.2: T, then T x 2, T x 3 ... after each resend, -retries
	// times): a gateway slow to answer in a reconnect storm answers the copy it has, while a terminal that hung
	// up and dialled again would queue a new login behind its abandoned one, over and over.
	send := func(frame []byte, msgID, seq uint16) (reply, error) {
		for sends := int32(1); ; sends++ {
			if _, err := conn.Write(frame); err != nil {
				return reply{}, err
			}
			if sends > 1 {
				atomic.AddInt64(&st.LoginResends, 1)
			}
			deadline := time.After(t.cfg.resendAfter(sends))
		wait:
			for {
				select {
				case r, ok := <-replies:
					if !ok {
						return reply{}, io.EOF
					}
					if r.ackSeq == seq && ((msgID == msgRegReply && r.msgID == msgRegReply) || (r.msgID == msgPlatformAck && r.ackMsgID == msgAuth)) {
						return r, nil
					}
				case <-deadline:
					break wait
				}
			}
			if sends > t.cfg.retries {
				return reply{}, errors.New("no reply")
			}
		}
	}
	if code == "" {
		body := []byte{0, 11, 0, 100, 'F', 'L', 'E', 'E', 'T'}
		model := make([]byte, 20)
		copy(model, "SIM-808")
		body = append(body, model...)
		id := fmt.Sprintf("%07d", t.idx%10000000)
		body = append(body, id[len(id)-7:]...)
		body = append(body, 2)
		seq := t.nextSeq()
		r, err := send(appendFrame(nil, msgRegister, t.bcd, seq, body), msgRegReply, seq)
		if err != nil {
			return err
		}
		if r.result != 0 || r.code == "" {
			atomic.AddInt64(&st.AuthFailures, 1)
			return fmt.Errorf("registration result %d", r.result)
		}
		atomic.AddInt64(&st.Registrations, 1)
		code = r.code
		t.codes.put(t.phone, code)
	}
	seq := t.nextSeq()
	r, err := send(appendFrame(nil, msgAuth, t.bcd, seq, []byte(code)), msgAuth, seq)
	if err != nil {
		return err
	}
	if r.result != 0 {
		atomic.AddInt64(&st.AuthFailures, 1)
		t.codes.put(t.phone, "")
		return fmt.Errorf("authentication result %d", r.result)
	}
	return nil
}

// fill appends what is due now: overdue resends (same serial), one backlog batch, new positions.
func (t *terminal) fill(out []byte, now time.Time) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	var body [128]byte
	for seq, p := range t.wait {
		if t.cfg.exhausted(p) || now.Sub(p.sentAt) < t.cfg.resendAfter(p.sends) {
			continue
		}
		p.sentAt = now
		p.sends++
		if p.batch != nil {
			out = t.appendBatch(out, seq, p.batch)
			atomic.AddInt64(&st.Resent, int64(len(p.batch)))
		} else {
			out = appendFrame(out, msgLocation, t.bcd, seq, locationBody(body[:0], t.idx, int(p.k), t.fixOf(p.k)))
			atomic.AddInt64(&st.Resent, 1)
		}
	}
	// positions owed from an earlier connection (sent before, or generated while offline) go up as
	// a 0x0704 backlog, one batch in flight; the rest as 0x0200
	for len(t.owed) > 0 {
		k := t.owed[0]
		if t.everSent[k] || !t.liveSince(k) {
			if t.backlogBatch {
				break
			}
			n := 0
			for n < len(t.owed) && n < t.cfg.batchItems && (t.everSent[t.owed[n]] || !t.liveSince(t.owed[n])) {
				n++
			}
			items := append([]int32(nil), t.owed[:n]...)
			t.owed = t.owed[n:]
			seq := t.nextSeq()
			t.wait[seq] = &pending{k: items[0], firstAt: now, sentAt: now, sends: 1, batch: items}
			t.backlogBatch = true
			for _, k := range items {
				t.firstSend(k)
			}
			out = t.appendBatch(out, seq, items)
			atomic.AddInt64(&st.BacklogBatches, 1)
			continue
		}
		t.owed = t.owed[1:]
		seq := t.nextSeq()
		t.wait[seq] = &pending{k: k, firstAt: now, sentAt: now, sends: 1}
		t.firstSend(k)
		out = appendFrame(out, msgLocation, t.bcd, seq, locationBody(body[:0], t.idx, int(k), t.fixOf(k)))
	}
	return out
}

// liveSince: position k was generated during the current connection (not owed from before it).
func (t *terminal) liveSince(k int32) bool { return k >= t.connectedAt }

func (t *terminal) firstSend(k int32) {
	if !t.everSent[k] {
		t.everSent[k] = true
		atomic.AddInt64(&st.Sent, 1)
		t.log.ch <- logEvent{'s', int32(t.idx - t.cfg.first), t.fixOf(k), time.Now().UnixMilli()}
	}
}

func (t *terminal) appendBatch(out []byte, seq uint16, items []int32) []byte {
	body := make([]byte, 0, 3+len(items)*42)
	body = append(body, byte(len(items)>>8), byte(len(items)), 1)
	var loc [128]byte
	for _, k := range items {
		b := locationBody(loc[:0], t.idx, int(k), t.fixOf(k))
		body = append(body, byte(len(b)>>8), byte(len(b)))
		body = append(body, b...)
	}
	return appendFrame(out, msgBatch, t.bcd, seq, body)
}

// acknowledged handles a 0x8001 for a position or batch; true when the writer should look again
// (a backlog batch done, a refusal to resend).
func (t *terminal) acknowledged(r reply) bool {
	t.mu.Lock()
	p := t.wait[r.ackSeq]
	if p == nil || r.ackMsgID != p.msgID() {
		t.mu.Unlock()
		return false // a late duplicate ack, or one for another message with this serial
	}
	delete(t.wait, r.ackSeq)
	if p.batch != nil {
		t.backlogBatch = false
	}
	if r.result != 0 { // refused: send again later
		atomic.AddInt64(&st.Rejected, 1)
		back := p.batch
		if back == nil {
			back = []int32{p.k}
		}
		t.owed = mergeSorted(back, t.owed)
		t.mu.Unlock()
		return true
	}
	items := p.batch
	if items == nil {
		items = []int32{p.k}
	}
	for _, k := range items {
		delete(t.everSent, k)
	}
	t.mu.Unlock()
	ackLatency.add(time.Since(p.firstAt))
	atomic.AddInt64(&st.Acked, int64(len(items)))
	if p.batch != nil {
		atomic.AddInt64(&st.BacklogUploaded, int64(len(items)))
	}
	at := time.Now().UnixMilli()
	for _, k := range items {
		t.log.ch <- logEvent{'a', int32(t.idx - t.cfg.first), t.fixOf(k), at}
	}
	return p.batch != nil
}

// ---------------------------------------------------------------------------------- main

func main() {
	cfg := &config{}
	var sources string
	var procs int
	flag.StringVar(&cfg.host, "host", "127.0.0.1", "gateway host")
	flag.IntVar(&cfg.port, "port", 7611, "gateway port")
	flag.IntVar(&cfg.terminals, "terminals", 1000, "terminals (one connection each)")
	flag.IntVar(&cfg.first, "first", 1, "index of the first terminal (phone = prefix + 8-digit index)")
	flag.StringVar(&cfg.prefix, "prefix", "0138", "phone prefix")
	flag.Float64Var(&cfg.rate, "rate", 1000, "positions per second, all terminals together")
	flag.Float64Var(&cfg.duration, "duration", 60, "seconds of generating positions")
	flag.Float64Var(&cfg.drain, "drain", 30, "seconds to wait for acknowledgements after generating")
	flag.Float64Var(&cfg.ackTimeout, "ack-timeout", 10, "JT/T 808 T: resend a position not acknowledged within T, then within 2T, 6T, 24T...")
	retries := flag.Int("retries", 3, "JT/T 808 parameter 0x0003: resends of a message; when the last goes unanswered, reconnect and upload the rest as backlog")
	flag.Float64Var(&cfg.reconnectMin, "reconnect-min", 1, "first reconnect delay, doubling")
	flag.Float64Var(&cfg.reconnectMax, "reconnect-max", 30, "longest reconnect delay")
	flag.Float64Var(&cfg.heartbeat, "heartbeat", 30, "heartbeat when nothing was sent for this long")
	flag.Float64Var(&cfg.connectRamp, "ramp", 500, "connections opened per second at the start")
	flag.IntVar(&cfg.batchItems, "batch-items", 20, "positions per 0x0704 backlog upload")
	flag.StringVar(&cfg.authPath, "auth", "", "JSON file of auth codes (phone -> code), read and written back")
	flag.StringVar(&cfg.logPath, "log", "", "reconciliation log: s/a,phone,fix unix seconds")
	flag.StringVar(&cfg.statsPath, "stats", "", "write stats as JSON here at the end")
	flag.StringVar(&sources, "sources", "", "comma-separated local addresses, the terminals spread over them in turn")
	flag.Int64Var(&cfg.fixStart, "fix-start", 0, "unix seconds of the first fix (0: so the last fix is about now)")
	flag.IntVar(&procs, "procs", 1, "GOMAXPROCS")
	flag.Float64Var(&cfg.progress, "progress", 0, "every this many seconds, one JSON line of the counters so far on stderr (0: none)")
	flag.Parse()
	cfg.retries = int32(max(-1, min(*retries, maxRetries+1))) // out of range: refused by validate
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "fleet-loadgen:", err)
		os.Exit(2)
	}
	runtime.GOMAXPROCS(procs)
	if path := os.Getenv("FLEET_LOADGEN_CPUPROFILE"); path != "" { // go tool pprof <binary> <path>
		if f, err := os.Create(path); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if sources != "" {
		cfg.sources = strings.Split(sources, ",")
	}
	codes := &codeStore{codes: map[string]string{}}
	if cfg.authPath != "" {
		if data, err := os.ReadFile(cfg.authPath); err == nil {
			json.Unmarshal(data, &codes.codes)
		}
	}
	stop := make(chan struct{})
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-signals
		close(stop)
	}()
	result, err := run(cfg, codes, stop)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet-loadgen:", err)
		os.Exit(2)
	}
	if cfg.authPath != "" && codes.dirty {
		data, _ := json.Marshal(codes.codes)
		os.WriteFile(cfg.authPath+".tmp", data, 0o644)
		os.Rename(cfg.authPath+".tmp", cfg.authPath)
	}
	data, _ := json.MarshalIndent(result, "", "  ")
	if cfg.statsPath != "" {
		os.WriteFile(cfg.statsPath, data, 0o644)
	}
	fmt.Println(string(data))
}

// progressLine: the counters a long run is watched by (benchmarks/terminals_bench.py reads them), read while it runs.
type progressLine struct {
	T             float64 `json:"t"` // seconds since the run began
	Online        int64   `json:"online"`
	Authenticated int64   `json:"authenticated"`
	Connects      int64   `json:"connects"`
	Heartbeats    int64   `json:"heartbeats"`
	HeartbeatAcks int64   `json:"heartbeat_acks"`
	Sent          int64   `json:"sent"`
	Acked         int64   `json:"acked"`
	LinkTimeouts  int64   `json:"link_timeouts"`
}

func progressNow(began time.Time) progressLine {
	return progressLine{T: time.Since(began).Seconds(), Online: atomic.LoadInt64(&st.Online),
		Authenticated: atomic.LoadInt64(&st.Authenticated), Connects: atomic.LoadInt64(&st.Connects),
		Heartbeats: atomic.LoadInt64(&st.Heartbeats), HeartbeatAcks: atomic.LoadInt64(&st.HeartbeatAcks),
		Sent: atomic.LoadInt64(&st.Sent), Acked: atomic.LoadInt64(&st.Acked), LinkTimeouts: atomic.LoadInt64(&st.LinkTimeouts)}
}

// reportProgress writes one progressLine every `every` until done.
func reportProgress(w io.Writer, began time.Time, every time.Duration, done <-chan struct{}) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			line, _ := json.Marshal(progressNow(began))
			fmt.Fprintln(w, string(line))
		}
	}
}

// validate: the flags make sense (a phone of at most 12 digits, something to send).
func (c *config) validate() error {
	switch {
	case c.terminals <= 0:
		return errors.New("-terminals must be at least 1")
	case !(c.rate > 0) || c.intervalDuration() < time.Microsecond:
		return errors.New("-rate must be positive, and at most a million per second per terminal")
	case c.first < 0 || c.first+c.terminals-1 > 99999999:
		return errors.New("-first and -terminals: terminal indexes must fit 8 digits")
	case len(c.prefix) > 4 || strings.Trim(c.prefix, "0123456789") != "":
		return errors.New("-prefix must be at most 4 digits (prefix + 8-digit index: a 12-digit BCD phone)")
	case c.ackTimeout <= 0:
		return errors.New("-ack-timeout must be positive")
	case c.retries < 0 || c.retries > maxRetries:
		return fmt.Errorf("-retries must be 0 to %d", maxRetries)
	case c.batchItems <= 0:
		return errors.New("-batch-items must be at least 1")
	case !(c.heartbeat > 0):
		return errors.New("-heartbeat must be positive (a terminal sleeps until it is due)")
	case c.progress < 0:
		return errors.New("-progress must be 0 (none) or positive")
	case c.connectRamp <= 0:
		return errors.New("-ramp must be positive")
	}
	return nil
}

// run drives cfg.terminals terminals for cfg.duration seconds, then waits up to cfg.drain seconds for
// the last acknowledgements, and returns the stats; closing interrupt ends both phases at once. Auth
// codes are read from and added to codes.
func run(cfg *config, codes *codeStore, interrupt <-chan struct{}) (stats, error) {
	st = stats{}
	ackLatency.reset()
	perTerminal := int64(cfg.duration/cfg.interval()) + 1
	if cfg.fixStart == 0 {
		cfg.fixStart = time.Now().Unix() - perTerminal*cfg.fixStep() + int64(cfg.duration)
	}
	phones := make([]string, cfg.terminals)
	for i := range phones {
		phones[i] = fmt.Sprintf("%s%08d", cfg.prefix, cfg.first+i)
	}
	events, err := newEventLog(cfg.logPath, phones)
	if err != nil {
		return stats{}, fmt.Errorf("log: %w", err)
	}
	began := time.Now()
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	genStop, stop := make(chan struct{}), make(chan struct{}) // stop: hang up now
	var stopOnce sync.Once
	closeStop := func() { stopOnce.Do(func() { close(stop) }) }
	go func() {
		select {
		case <-interrupt:
			closeStop()
		case <-stop:
		}
	}()
	var wg sync.WaitGroup
	terms := make([]*terminal, cfg.terminals)
	phases := make([]time.Duration, cfg.terminals)
	// connections ramp up; positions start for everyone at `start` (after the ramp)
	ramp := time.Duration(float64(cfg.terminals) / cfg.connectRamp * float64(time.Second))
	start := began.Add(ramp)
	interval := cfg.interval()
	for i := range terms {
		t := &terminal{idx: cfg.first + i, phone: phones[i], bcd: bcdPhone(phones[i]), cfg: cfg, log: events, codes: codes,
			rng: rand.New(rand.NewSource(int64(808*1000003 + i))), wait: map[uint16]*pending{}, everSent: map[int32]bool{},
			kick: make(chan struct{}, 1)}
		t.seq = uint16(t.rng.Intn(0x10000))
		terms[i] = t
		phase := time.Duration(t.rng.Float64() * interval * float64(time.Second))
		phases[i] = phase
		wg.Add(1)
		go func(t *terminal, delay time.Duration) {
			select {
			case <-time.After(delay):
			case <-stop:
			}
			t.run(start, phase, genStop, stop, &wg)
		}(t, time.Duration(float64(i)/cfg.connectRamp*float64(time.Second)))
	}
	atomic.StoreInt64(&st.Terminals, int64(cfg.terminals))
	if cfg.progress > 0 {
		progressDone := make(chan struct{})
		defer close(progressDone)
		go reportProgress(os.Stderr, began, time.Duration(cfg.progress*float64(time.Second)), progressDone)
	}
	select {
	case <-time.After(time.Until(start.Add(time.Duration(cfg.duration * float64(time.Second))))):
	case <-stop:
	}
	close(genStop)
	for _, t := range terms { // wake sleeping terminals so they notice
		select {
		case t.kick <- struct{}{}:
		default:
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-stop:
		<-done
	case <-time.After(time.Duration(cfg.drain * float64(time.Second))):
		closeStop()
		<-done
	}
	closeStop()
	events.close()
	now := time.Now()
	for i, t := range terms {
		t.generate(start, phases[i], now) // also what fell due while a terminal could not get through
		t.mu.Lock()
		st.Generated += int64(t.next)
		st.Unacked += int64(len(t.everSent))
		t.mu.Unlock()
	}
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := func(r syscall.Rusage) float64 {
		return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
	}
	st.CPUSeconds = cpu(ru1) - cpu(ru0)
	st.UserSeconds = float64(ru1.Utime.Sec-ru0.Utime.Sec) + float64(ru1.Utime.Usec-ru0.Utime.Usec)/1e6
	st.SysSeconds = float64(ru1.Stime.Sec-ru0.Stime.Sec) + float64(ru1.Stime.Usec-ru0.Stime.Usec)/1e6
	st.WallSeconds = time.Since(began).Seconds()
	st.AckP50Ms, st.AckP99Ms, st.AckMaxMs = ackLatency.quantile(0.5), ackLatency.quantile(0.99), ackLatency.max
	return st, nil
}
