package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// proc is one component of the bed, run as a child process that logs to logs/<name>.log and dies
// with the bed (PDEATHSIG), however the bed ends.
type proc struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startProc(binDir, logDir, name, binary string, args []string) (*proc, error) {
	logFile, err := os.Create(filepath.Join(logDir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(binDir, binary), args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, log: logFile.Name(), cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// stop asks the process to end (SIGTERM) and kills it after grace.
func (p *proc) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// freePort finds a free port on 127.0.0.1 for a component to listen on, below the kernel's
// ephemeral range: a port from that range (what listening on port 0 hands out) can be taken, between
// this check and the component binding it, by any outgoing connection on the machine, which is
// how a busy machine made etcd fail with "address already in use". Ports below the range are only
// taken by other listeners. Falls back to the kernel's choice when the range starts too low.
func freePort() (int, error) {
	lo, hi := 20000, ephemeralStart()
	if hi-lo >= 1000 {
		for i := 0; i < 100; i++ {
			port := lo + rand.IntN(hi-lo)
			if taken[port] {
				continue
			}
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				continue
			}
			l.Close()
			taken[port] = true
			return port, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// taken holds the ports this bed already handed out (they are free until their component binds them).
var taken = map[int]bool{}

// ephemeralStart is the first port of the kernel's ephemeral range (Linux; 32768 when unknown).
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	var start, end int
	if _, err := fmt.Sscanf(string(b), "%d %d", &start, &end); err != nil {
		return 32768
	}
	return start
}

// logTail is the last n lines of a component's log (the bed's directory may be gone by the time
// anyone looks, so a failure carries them).
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// waitHealthy polls url until it answers 200, the process exits or the context ends. client may
// carry a client certificate; every serving certificate of the bed is trusted through it.
func waitHealthy(ctx context.Context, p *proc, client *http.Client, url string) error {
	var last string
	for {
		if p.exited() {
			return fmt.Errorf("%s exited before it was healthy (%v); the end of logs/%s.log:\n%s", p.name, p.err, p.name, logTail(p.log, 10))
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not healthy at %s: %s", p.name, url, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// insecureClient reads the health endpoints of kube-controller-manager and kube-scheduler, which
// serve a self-signed certificate of their own.
func insecureClient() *http.Client {
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
}
