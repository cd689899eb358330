package mermaidcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// browserTimeout bounds one run of Chromium: generous, for a loaded 2-core machine. No run
// waits for a time: the check page posts its report when done, a screenshot run exits.
const browserTimeout = 3 * time.Minute

// site is the loopback server the browser loads everything from: the check page, Mermaid's
// bundle, the configuration, the diagrams, and the screenshot pages. The page posts its
// report back to it.
type site struct {
	*httptest.Server
	reports chan []byte

	mu    sync.Mutex
	shots map[string]string // path → a static page of drawings
}

func newSite(t *testing.T, mermaidJS string, diagrams []diagram) *site {
	t.Helper()
	list, err := json.Marshal(diagrams)
	if err != nil {
		t.Fatal(err)
	}
	config, err := json.Marshal(githubConfig)
	if err != nil {
		t.Fatal(err)
	}
	s := &site{reports: make(chan []byte, 1), shots: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /check.html", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join("testdata", "check.html"))
	})
	mux.HandleFunc("GET /mermaid.min.js", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, mermaidJS)
	})
	mux.HandleFunc("GET /config.json", serveBytes("application/json", config))
	mux.HandleFunc("GET /diagrams.json", serveBytes("application/json", list))
	mux.HandleFunc("POST /report", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case s.reports <- body:
		default: // a second report: the first is the one read
		}
	})
	mux.HandleFunc("GET /shot/{name}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		page, ok := s.shots[r.PathValue("name")]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		serveBytes("text/html; charset=utf-8", []byte(page))(w, r)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func serveBytes(contentType string, b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}
}

// check loads the check page in Chromium and returns the report it posts.
func (s *site) check(t *testing.T, chromium string) report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	cmd, stderr := browser(ctx, chromium, t.TempDir(), s.URL+"/check.html")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cancel() // kills the browser's process group, if it still runs
		<-exited
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // and what it left
	}()
	var body []byte
	select {
	case body = <-s.reports:
	case err := <-exited:
		exited <- err
		t.Fatalf("chromium exited (%v) before the page reported:\n%s", err, stderr)
	case <-ctx.Done():
		exited <- <-exited // the output is read once the browser is gone
		t.Fatalf("no report from the page within %s:\n%s", browserTimeout, stderr)
	}
	var rep report
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatalf("the page's report: %v\n%s", err, body)
	}
	return rep
}

// screenshot serves page at /shot/name and returns Chromium's screenshot of it, width×height
// CSS pixels at one device pixel each. The page is static (the drawings are inline SVG), so
// it is complete when it has loaded, which is when Chromium takes the screenshot and exits.
func (s *site) screenshot(t *testing.T, chromium, name, page string, width, height int) []byte {
	t.Helper()
	s.mu.Lock()
	s.shots[name] = page
	s.mu.Unlock()
	out := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	cmd, stderr := browser(ctx, chromium, t.TempDir(), "--screenshot="+out,
		fmt.Sprintf("--window-size=%d,%d", width, height), "--hide-scrollbars",
		"--force-device-scale-factor=1", s.URL+"/shot/"+name)
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, stderr)
	}
	png, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v\n%s", err, stderr)
	}
	return png
}

// browser is headless Chromium on the arguments, with a profile of its own in profile, in a
// process group of its own that ctx's end kills whole (the renderer and other helpers too).
// It reaches only the loopback server: no proxy, no background networking, no updates.
func browser(ctx context.Context, chromium, profile string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	flags := []string{
		"--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage",
		"--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
		"--no-proxy-server", "--disable-background-networking", "--disable-component-update",
		"--disable-extensions", "--disable-sync", "--disable-breakpad", "--disable-crash-reporter",
		"--mute-audio",
	}
	cmd := exec.CommandContext(ctx, chromium, append(flags, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	return cmd, &stderr
}
