package sdks

import (
	"embed"
	"io/fs"
)

// dist is the packages `make build` copied from dist/ (`make sdk-dist`). Only dist/.gitkeep is committed, so a plain
// `go build` compiles and its Load answers ErrNotBuilt.
//
//go:embed all:dist
var dist embed.FS

// Embedded is the folder of packages built into this binary, for Load.
func Embedded() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // "dist" is a valid path
	}
	return sub
}
