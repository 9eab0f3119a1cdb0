// Command reports scores explain on the real-report corpus
// (testdata/reports) and prints, per split, top-1, top-3, the silent rate,
// top-1 where the root differs from the surface, per-class recall and the
// most frequent confusions. Misses are listed for the tune split only: the
// test split's numbers are read, its misses never.
//
//	go run ./bench/reports [-dir testdata/reports] [-misses]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/cudadoctor/cudadoctor/internal/corpus"
	"github.com/cudadoctor/cudadoctor/internal/explain"
	"github.com/cudadoctor/cudadoctor/internal/kb"
)

func main() {
	dir := flag.String("dir", "testdata/reports", "corpus directory")
	misses := flag.Bool("misses", false, "list the tune split's top-1 misses")
	flag.Parse()
	rs, err := corpus.Load(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reports:", err)
		os.Exit(3)
	}
	e := explain.New(kb.MustDefault())
	parts := map[corpus.Split][]corpus.Report{}
	for _, r := range rs {
		parts[corpus.SplitOf(r.URL)] = append(parts[corpus.SplitOf(r.URL)], r)
	}
	for _, sp := range []corpus.Split{corpus.Tune, corpus.Test} {
		out := corpus.Run(context.Background(), e, parts[sp])
		s := corpus.Measure(out)
		fmt.Printf("%-5s %s\n", sp, s.Summary())
		var classes []string
		for c := range s.ClassTotal {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		for _, c := range classes {
			fmt.Printf("        %-24s %3d/%-3d\n", c, s.ClassHits[c], s.ClassTotal[c])
		}
		type pair struct {
			k [2]string
			n int
		}
		var ps []pair
		for k, n := range s.Confusion {
			ps = append(ps, pair{k, n})
		}
		sort.Slice(ps, func(i, j int) bool {
			if ps[i].n != ps[j].n {
				return ps[i].n > ps[j].n
			}
			return ps[i].k[0]+ps[i].k[1] < ps[j].k[0]+ps[j].k[1]
		})
		fmt.Println("      confusions (root -> said):")
		for i, p := range ps {
			if i == 12 {
				break
			}
			fmt.Printf("        %3d  %s -> %s\n", p.n, p.k[0], p.k[1])
		}
		if *misses && sp == corpus.Tune {
			for _, o := range out {
				if !o.Top1() {
					fmt.Printf("MISS %s:%d root=%s surface=%s said=%v %s\n", o.Report.File, o.Report.Line, o.Report.Root, o.Report.Surface, o.Ranked, o.Report.URL)
				}
			}
		}
	}
}
