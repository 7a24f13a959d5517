package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
)

// static holds the vendored htmx (2.0.11, 0BSD, from the npm package htmx.org: dist/htmx.min.js)
// and the hand-written stylesheet.
//
//go:embed static
var static embed.FS

// asset is one embedded file under its content-hashed name.
type asset struct {
	data        string
	hashed      string // e.g. app.3f2a9c1b.css
	contentType string
}

// assetTable maps plain and hashed names to the files; computed once at init, never changed.
type assetTable struct {
	byName   map[string]asset
	byHashed map[string]asset
}

var assets = loadAssets()

func loadAssets() assetTable {
	t := assetTable{byName: map[string]asset{}, byHashed: map[string]asset{}}
	entries, err := fs.ReadDir(static, "static")
	if err != nil {
		panic("web: reading embedded assets: " + err.Error())
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := static.ReadFile("static/" + e.Name())
		if err != nil {
			panic("web: reading embedded asset: " + err.Error())
		}
		a := asset{data: string(b), hashed: hashedName(e.Name(), b), contentType: contentType(e.Name())}
		t.byName[e.Name()] = a
		t.byHashed[a.hashed] = a
	}
	return t
}

// hashedName inserts the first 8 hex digits of the content's SHA-256 before the extension.
func hashedName(name string, data []byte) string {
	sum := sha256.Sum256(data)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:4]) + ext
}

// contentType is fixed per extension rather than taken from the mime package, whose table
// the host's mime.types files can change.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".txt":
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}

// AssetPath returns the URL of an embedded file under its content-hashed name,
// e.g. AssetPath("app.css") = "/admin/static/app.3f2a9c1b.css". The URL changes whenever
// the content does, so it can be cached forever. An unknown name is returned unhashed.
func AssetPath(name string) string {
	if a, ok := assets.byName[name]; ok {
		return StaticPrefix + a.hashed
	}
	return StaticPrefix + name
}

// Asset looks up a file by its hashed name (the last segment of an AssetPath URL) and
// returns a copy of its content and its content type.
func Asset(hashedName string) (data []byte, contentType string, ok bool) {
	a, ok := assets.byHashed[hashedName]
	if !ok {
		return nil, "", false
	}
	return []byte(a.data), a.contentType, true
}

// AssetCacheControl is the Cache-Control value for responses from Asset: hashed names never
// change content.
const AssetCacheControl = "public, max-age=31536000, immutable"
