// Command genlog writes a large synthetic training log for the explain
// benchmark: real NCCL_DEBUG=INFO lines and step-progress lines from the
// fixture runs, repeated up to a size, then a real failure (fixture n2:
// a device-side assert flood and rank 1's traceback) at the end.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
)

func main() {
	size := flag.Int64("size", 1<<30, "bytes of noise before the failure")
	out := flag.String("o", "train.log", "output file")
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	if err := Write(*out, *root, *size); err != nil {
		log.Fatal(err)
	}
}

// Write generates the log.
func Write(path, root string, size int64) error {
	noise, err := os.ReadFile(root + "/testdata/gpu/logs/h200x2/n3_debug_info.plain.log")
	if err != nil {
		return err
	}
	var info []string
	for _, l := range strings.Split(string(noise), "\n") {
		if strings.Contains(l, "NCCL INFO") {
			info = append(info, l)
		}
	}
	failure, err := os.ReadFile(root + "/testdata/gpu/logs/h200x2/n2_rank_crash.plain.log")
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for step := 0; n < size; step++ {
		for r := 0; r < 2; r++ {
			k, _ := fmt.Fprintf(w, "[rank%d]: step %d loss %.4f lr 3.0e-04 grad_norm %.3f tokens/s %d\n", r, step, 10/float64(step+1), 1+float64(step%97)/100, 150000+step%5000)
			n += int64(k)
		}
		if step%50 == 0 {
			for _, l := range info {
				k, _ := w.WriteString(l + "\n")
				n += int64(k)
			}
		}
	}
	lines := strings.SplitAfter(string(failure), "\n")
	for _, l := range lines[4:] { // after torchrun's start-up banner
		w.WriteString(l)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
