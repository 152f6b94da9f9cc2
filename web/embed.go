// Package web holds the React app, built by Vite into dist/app and embedded into the binary.
package web

import (
	"embed"
	"io/fs"
)

// dist always holds a committed .gitkeep, so the Go build works before the first `npm run build`; the built app
// lives in dist/app.
//
//go:embed all:dist
var dist embed.FS

// App returns the built single-page app (index.html and assets/), or an empty file system when the web app has
// not been built (the server then explains how to build it).
func App() fs.FS {
	sub, err := fs.Sub(dist, "dist/app")
	if err != nil {
		// fs.Sub only fails on an invalid path, and "dist/app" is valid.
		panic(err)
	}
	return sub
}
