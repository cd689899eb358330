package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// webhookServer records what a drift run POSTs to its webhook.
type webhookServer struct {
	mu       sync.Mutex
	requests int // every request, failed ones too
	failNext int
	dir      string
}

var webhooks sync.Map // work dir → *webhookServer

// webhookSecret is the part of the URL that makes it a credential, as in Slack's URLs.
const webhookSecret = "whsec-7Hq2Zp9Lx4"

// webhook SUBCOMMAND ARGS... runs a webhook receiver in this test process:
//
//	webhook start [FAIL]   start it; set WEBHOOK_URL (its path holds a secret) and WEBHOOK_SECRET; the first FAIL
//	                       requests get 503; each request's body goes to webhook-N.json
//	webhook count N        exactly N requests arrived (failed ones included)
//	webhook fail N         the next N requests get 503
func cmdWebhook(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: webhook start [FAIL] | webhook count N | webhook fail N")
	}
	num := func(i int) int {
		if len(args) <= i {
			return 0
		}
		n, err := strconv.Atoi(args[i])
		ts.Check(err)
		return n
	}
	if args[0] == "start" {
		w := &webhookServer{failNext: num(1), dir: ts.Getenv("WORK")}
		srv := httptest.NewServer(w)
		ts.Defer(srv.Close)
		webhooks.Store(ts.Getenv("WORK"), w)
		ts.Setenv("WEBHOOK_URL", srv.URL+"/hooks/T000/B000/"+webhookSecret)
		ts.Setenv("WEBHOOK_SECRET", webhookSecret)
		return
	}
	v, ok := webhooks.Load(ts.Getenv("WORK"))
	if !ok {
		ts.Fatalf("webhook: run `webhook start` first")
	}
	w := v.(*webhookServer)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch args[0] {
	case "count":
		if w.requests != num(1) {
			ts.Fatalf("the webhook got %d requests, want %d", w.requests, num(1))
		}
	case "fail":
		w.failNext = num(1)
	default:
		ts.Fatalf("webhook: unknown subcommand %q", args[0])
	}
}

func (w *webhookServer) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests++
	if r.Method != http.MethodPost || r.URL.Path != "/hooks/T000/B000/"+webhookSecret || r.Header.Get("Content-Type") != "application/json" {
		http.Error(rw, "bad request", http.StatusBadRequest)
		return
	}
	if w.failNext > 0 {
		w.failNext--
		http.Error(rw, "try later", http.StatusServiceUnavailable)
		return
	}
	os.WriteFile(filepath.Join(w.dir, fmt.Sprintf("webhook-%d.json", w.requests)), body, 0o644)
	rw.Write([]byte("ok"))
}
