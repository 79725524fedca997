// Package changefeed carries state changes between server nodes that share
// one PostgreSQL database: a change is committed, then announced with
// NOTIFY on one channel with a small payload (its kind, the id of what
// changed and the node that made it); every node keeps one dedicated
// connection that LISTENs and applies what it hears (reload that kind from
// the database, drop what it cached for it).
//
// A node that loses its listening connection reconnects and reloads
// everything, so a missed notification costs a reload, never a stale answer
// for longer than the reconnect. On SQLite (one node) there is nothing to
// carry: a node applies its own changes as it makes them.
//
// The package knows nothing of HTTP nor of what a kind means: the server
// registers what to do for each kind.
package changefeed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Channel is the NOTIFY channel of the changes.
const Channel = "tessera_changes"

// Kind names what changed.
type Kind string

// The kinds of change.
const (
	Tileset Kind = "tileset" // a tileset created, renamed, (un)published or deleted
	Map     Kind = "map"     // a map's record (publication, format) or style
	APIKey  Kind = "apikey"  // a key created, changed or deleted
	Token   Kind = "token"   // a service token created or revoked
)

// Event is one announced change.
type Event struct {
	Kind Kind
	// ID is the id of what changed ("" when unknown: reload the kind).
	ID string
	// Node is the node that made the change.
	Node string
}

// Encode is the NOTIFY payload: "kind node id" (ids hold no spaces; the
// payload stays far below PostgreSQL's 8000 bytes).
func (e Event) Encode() string { return string(e.Kind) + " " + e.Node + " " + e.ID }

// Decode reads a payload made by Encode.
func Decode(payload string) (Event, error) {
	parts := strings.SplitN(payload, " ", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return Event{}, fmt.Errorf("change payload %.60q: want \"kind node id\"", payload)
	}
	return Event{Kind: Kind(parts[0]), Node: parts[1], ID: parts[2]}, nil
}

// NewNodeID returns a random id for this node's announcements.
func NewNodeID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Handler applies a change of one kind on this node.
type Handler func(ctx context.Context, ev Event) error

// Listener listens on Channel through its own connection and dispatches
// the changes made by other nodes.
type Listener struct {
	dsn  string
	node string
	log  *slog.Logger

	mu       sync.Mutex
	handlers map[Kind]Handler
	reload   func(ctx context.Context) error

	connected  atomic.Bool
	reconnects atomic.Uint64
	received   atomic.Uint64
	applied    atomic.Uint64
	pid        atomic.Uint32
}

// NewListener makes a listener on the database dsn that ignores the
// announcements of node (its own). reload reloads every kind: it runs
// after each reconnection.
func NewListener(dsn, node string, reload func(ctx context.Context) error, log *slog.Logger) *Listener {
	if log == nil {
		log = slog.Default()
	}
	return &Listener{dsn: dsn, node: node, log: log, handlers: map[Kind]Handler{}, reload: reload}
}

// Handle registers what to do for changes of a kind.
func (l *Listener) Handle(k Kind, h Handler) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.handlers[k] = h
}

// Connected tells whether the listening connection is up (and the snapshot
// was reloaded after it came up).
func (l *Listener) Connected() bool { return l.connected.Load() }

// Reconnects counts the connections made after the first.
func (l *Listener) Reconnects() uint64 { return l.reconnects.Load() }

// Received counts the changes of other nodes taken to apply.
func (l *Listener) Received() uint64 { return l.received.Load() }

// Applied is the number of other nodes' changes whose handler has
// returned (applied, or failed and logged); Received less Applied are
// being applied now.
func (l *Listener) Applied() uint64 { return l.applied.Load() }

// BackendPID is the server process of the listening connection (0 when
// down): what pg_terminate_backend takes.
func (l *Listener) BackendPID() uint32 { return l.pid.Load() }

// Retry bounds the wait between two connection attempts.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 5 * time.Second
)

// Run listens until ctx ends, reconnecting (with a growing pause, at most
// maxRetry) whenever the connection is lost. Each connection after the
// first is followed by a full reload; the first is too when reloadFirst.
func (l *Listener) Run(ctx context.Context, reloadFirst bool) {
	wait := minRetry
	for first := true; ctx.Err() == nil; first = false {
		if !first {
			l.reconnects.Add(1)
		}
		err := l.session(ctx, !first || reloadFirst, func() { wait = minRetry })
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("change feed: connection lost; reconnecting", "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, maxRetry)
	}
}

// session connects, listens, reloads when asked and applies notifications
// until the connection fails.
func (l *Listener) session(ctx context.Context, reload bool, up func()) error {
	defer func() {
		l.connected.Store(false)
		l.pid.Store(0)
	}()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.Connect(cctx, l.dsn)
	cancel()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// Listening first, then reloading: a change committed meanwhile is
	// both in the reload and heard, never in neither.
	if reload && l.reload != nil {
		if err := l.reload(ctx); err != nil {
			return fmt.Errorf("reload after connecting: %w", err)
		}
	}
	l.pid.Store(conn.PgConn().PID())
	l.connected.Store(true)
	up()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for a notification: %w", err)
		}
		ev, err := Decode(n.Payload)
		if err != nil {
			l.log.Warn("change feed: bad payload", "err", err)
			continue
		}
		if ev.Node == l.node {
			continue // applied when it was made
		}
		l.apply(ctx, ev)
	}
}

// apply runs the handler of the event's kind; a failure is logged (the
// database is then most likely unreachable, and the reconnection that
// follows reloads everything).
func (l *Listener) apply(ctx context.Context, ev Event) {
	l.mu.Lock()
	h := l.handlers[ev.Kind]
	l.mu.Unlock()
	if h == nil {
		return
	}
	l.received.Add(1)
	defer l.applied.Add(1)
	if err := h(ctx, ev); err != nil && !errors.Is(err, context.Canceled) {
		l.log.Warn("change feed: apply a change", "kind", ev.Kind, "id", ev.ID, "err", err)
	}
}
