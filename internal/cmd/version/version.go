// Package version is `cudadoctor version`: the build stamp as text or JSON.
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
	"github.com/cudadoctor/cudadoctor/internal/render"
)

// Command is `cudadoctor version`.
func Command(d *command.Deps) *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Short:       "Print the version, commit, build date and Go version",
		Args:        cobra.NoArgs,
		Annotations: map[string]string{command.FormatsAnnotation: "text,json"},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch d.Format {
			case "text":
				_, err := fmt.Fprint(d.Sys.Stdout, d.Build.Text())
				return err
			case "json":
				return render.WriteJSON(d.Sys.Stdout, d.Build)
			}
			return command.Usagef("version has no --format %s: it prints text or json", d.Format)
		},
	}
}
