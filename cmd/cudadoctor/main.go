// Command cudadoctor explains why a PyTorch GPU program failed.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/cudadoctor/cudadoctor/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.System())
	stop()
	os.Exit(code)
}
