package run

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress tells the user a re-run is under way. On a terminal it is a
// spinner with the elapsed time, redrawn in place; elsewhere (CI logs,
// files) it is a plain line at the start, one a minute, and one at the end.
type progress struct {
	w     io.Writer
	tty   bool
	now   func() time.Time
	start time.Time
	what  string
	done  chan struct{}
	wg    sync.WaitGroup
	tick  time.Duration
}

var spinnerFrames = []string{"|", "/", "-", "\\"}

func startProgress(w io.Writer, tty bool, now func() time.Time, what string) *progress {
	p := &progress{w: w, tty: tty, now: now, start: now(), what: what, done: make(chan struct{}), tick: time.Minute}
	if tty {
		p.tick = 200 * time.Millisecond
	} else {
		fmt.Fprintf(w, "cudadoctor: %s ...\n", what)
	}
	p.wg.Add(1)
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer p.wg.Done()
	t := time.NewTicker(p.tick)
	defer t.Stop()
	for i := 0; ; i++ {
		if p.tty {
			fmt.Fprintf(p.w, "\r\x1b[Kcudadoctor: %s %s %s", p.what, spinnerFrames[i%len(spinnerFrames)], p.elapsed())
		}
		select {
		case <-p.done:
			return
		case <-t.C:
			if !p.tty {
				fmt.Fprintf(p.w, "cudadoctor: still re-running (%s)\n", p.elapsed())
			}
		}
	}
}

func (p *progress) elapsed() time.Duration { return p.now().Sub(p.start).Round(100 * time.Millisecond) }

// stop ends the indicator with a final line ("" for none).
func (p *progress) stop(status string) {
	close(p.done)
	p.wg.Wait()
	if p.tty {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	if status != "" {
		fmt.Fprintf(p.w, "cudadoctor: re-run finished in %s: %s\n", p.elapsed(), status)
	}
}
