// Package rules is `cudadoctor rules`: the documentation of every rule that
// can fire (failure classes, lint rules, environment checks, Flight Recorder
// and memory analyses) as a list, one rule, or the Markdown page
// docs/rules.md.
package rules

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
	lintcmd "github.com/cudadoctor/cudadoctor/internal/cmd/lint"
	"github.com/cudadoctor/cudadoctor/internal/flightrec"
	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/memsnap"
	"github.com/cudadoctor/cudadoctor/internal/probe"
	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// All gathers the documentation of everything that can fire: taxonomy
// classes, Flight Recorder analyses, environment checks, memory analyses and
// lint rules. It is the one registry `rules`, docs/rules.md and the
// registry test read.
func All() ([]report.RuleDoc, error) {
	k, err := kb.Default()
	if err != nil {
		return nil, err
	}
	rules := k.RuleDocs()
	rules = append(rules, flightrec.RuleDocs()...)
	rules = append(rules, probe.RuleDocs()...)
	rules = append(rules, memsnap.RuleDocs()...)
	rules = append(rules, lintcmd.RuleDocs()...)
	return rules, nil
}

// Command is `cudadoctor rules`.
func Command(d *command.Deps) *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "rules [ID]",
		Short: "Document every failure class, lint rule and check",
		Long: `Without an argument, list every rule cudadoctor can report, one a line.
With an ID (a class such as oom, a lint code such as CD101, a probe such as
env/driver-version), print its full documentation.`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{command.FormatsAnnotation: strings.Join(formats, ",")},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			rules, err := All()
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			var ids []string
			for _, r := range rules {
				if strings.HasPrefix(strings.ToLower(r.ID), strings.ToLower(toComplete)) {
					ids = append(ids, r.ID+"\t"+r.Title)
				}
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(formats, d.Format) {
				return command.Usagef("rules has no --format %s: it prints %s", d.Format, command.OrList(formats))
			}
			rules, err := All()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				if markdown || d.Format == "markdown" {
					_, err := io.WriteString(d.Sys.Stdout, Markdown(rules))
					return err
				}
				return list(d, rules)
			}
			for _, r := range rules {
				if strings.EqualFold(r.ID, args[0]) || (r.Name != "" && r.Name == args[0]) {
					if markdown || d.Format == "markdown" {
						_, err := io.WriteString(d.Sys.Stdout, ruleMarkdown(r, "#"))
						return err
					}
					return show(d, r)
				}
			}
			var names []string
			for _, r := range rules {
				names = append(names, r.ID)
				if r.Name != "" && r.Name != r.ID {
					names = append(names, r.Name)
				}
			}
			return &command.UsageError{
				Err:  fmt.Errorf("no rule %q%s", args[0], command.DidYouMean(command.Suggest(args[0], names, 5))),
				Hint: "Run 'cudadoctor rules' to list them.",
			}
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print every rule's documentation as one Markdown page (docs/rules.md)")
	return cmd
}

// formats are the --format values `rules` prints: documentation has
// no source line to annotate, so sarif and github mean nothing here.
var formats = []string{"text", "json", "markdown"}

func list(d *command.Deps, rules []report.RuleDoc) error {
	if d.Format == "json" {
		return render.WriteJSON(d.Sys.Stdout, rules)
	}
	w := d.Sys.Stdout
	kind := report.RuleKind("")
	for _, r := range rules {
		if r.Kind != kind {
			if kind != "" {
				fmt.Fprintln(w)
			}
			kind = r.Kind
			fmt.Fprintf(w, "%s:\n", kindTitle(kind))
		}
		fmt.Fprintf(w, "  %-28s %-8s %s\n", r.ID, r.Severity, r.Title)
	}
	return nil
}

func kindTitle(k report.RuleKind) string {
	switch k {
	case report.KindClass:
		return "Failure classes (explain, run)"
	case report.KindLint:
		return "Lint rules (lint)"
	case report.KindProbe:
		return "Environment checks (env)"
	case report.KindMemory:
		return "Memory analyses (memory)"
	}
	return string(k)
}

func show(d *command.Deps, r report.RuleDoc) error {
	if d.Format == "json" {
		return render.WriteJSON(d.Sys.Stdout, r)
	}
	w := d.Sys.Stdout
	fmt.Fprintf(w, "%s: %s\n", r.ID, r.Title)
	if r.Name != "" && r.Name != r.ID {
		fmt.Fprintf(w, "name: %s\n", r.Name)
	}
	fmt.Fprintf(w, "kind: %s, severity: %s\n\n%s\n", r.Kind, r.Severity, strings.TrimSpace(r.Summary))
	for _, s := range r.Sections {
		fmt.Fprintf(w, "\n%s:\n%s\n", s.Title, indent(strings.TrimSpace(s.Body)))
	}
	if len(r.References) > 0 {
		fmt.Fprintf(w, "\nReferences:\n%s\n", indent(strings.Join(r.References, "\n")))
	}
	return nil
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
