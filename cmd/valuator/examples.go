package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"valuator/internal/examples"
)

const examplesUsage = `Usage: valuator examples [--root DIR]

Regenerates the example valuation the product shows (the landing page, the API Keys documentation, the help
center and api/openapi.yaml): generates the demo market as of a fixed day, trains the engine on it and values
one of its homes through the real HTTP handler. Writes ` + examples.WebFile + ` and the generated example of
` + examples.OpenAPIFile + ` under DIR (default: the current directory, the repository's root).
`

func runExamples(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("examples", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, examplesUsage) }
	root := fs.String("root", ".", "the repository's root")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := examples.Write(ctx, *root)
	if err != nil {
		return err
	}
	v := f.Response.Data.Valuation
	fmt.Fprintf(stdout, "%s: %s %d (%d-%d), confidence %.3f; wrote %s and %s\n", f.Request.Line(),
		f.Response.Data.Property.MatchCode, v.EstimatedValue, v.Low, v.High, v.Confidence, examples.WebFile,
		examples.OpenAPIFile)
	return nil
}
