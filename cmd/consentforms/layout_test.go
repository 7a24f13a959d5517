package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The layout rules of README.md (Architecture) that go list cannot see: they read the source.

// sourceFile is one parsed hand-written, non-test Go file of the module.
type sourceFile struct {
	path string // relative to the module root, with slashes
	pkg  string // its directory
	file *ast.File
	fset *token.FileSet
}

// moduleSources parses every hand-written, non-test Go file of the module.
func moduleSources(t *testing.T) []sourceFile {
	t.Helper()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var out []sourceFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		name := d.Name()
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		out = append(out, sourceFile{path: rel, pkg: filepath.ToSlash(filepath.Dir(rel)), file: f, fset: fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// structTags calls fn with every struct field tag of f.
func structTags(f *ast.File, fn func(tag reflect.StructTag)) {
	ast.Inspect(f, func(n ast.Node) bool {
		if field, ok := n.(*ast.Field); ok && field.Tag != nil {
			if tag, err := strconv.Unquote(field.Tag.Value); err == nil {
				fn(reflect.StructTag(tag))
			}
		}
		return true
	})
}

// TestInterfacesDeclaredOnce: the store contract is declared once (package tenants); a
// consumer declares a small interface of its own only where its tests hand it a fake. So
// at most two interface names are declared in more than one package (today one: the
// Operations that api and admin each declare for their fakes).
func TestInterfacesDeclaredOnce(t *testing.T) {
	where := map[string][]string{}
	for _, sf := range moduleSources(t) {
		for _, decl := range sf.file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if _, ok := ts.Type.(*ast.InterfaceType); ok && !slices.Contains(where[ts.Name.Name], sf.pkg) {
					where[ts.Name.Name] = append(where[ts.Name.Name], sf.pkg)
				}
			}
		}
	}
	var echoed []string
	for name, pkgs := range where {
		if len(pkgs) > 1 {
			echoed = append(echoed, name+" ("+strings.Join(pkgs, ", ")+")")
		}
	}
	sort.Strings(echoed)
	if len(echoed) > 2 {
		t.Errorf("%d interface names are declared in more than one package, at most 2 may be:\n%s", len(echoed), strings.Join(echoed, "\n"))
	}
}

// infrastructure are the imports the domain does without: the outgoing HTTP client and the
// database drivers belong to the adapters around it.
var infrastructure = []string{"net/http", "database/sql", "go.mongodb.org/", "modernc.org/sqlite"}

// TestDomainHoldsNoInfrastructure: nothing under tenants/ imports net/http or a database
// driver, and no domain type carries a MongoDB bson tag (package mongo declares its
// documents).
func TestDomainHoldsNoInfrastructure(t *testing.T) {
	found := map[string]string{}
	for _, sf := range moduleSources(t) {
		if !strings.HasPrefix(sf.path, "tenants/") {
			continue
		}
		for _, imp := range sf.file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range infrastructure {
				if p == bad || strings.HasPrefix(p, bad+"/") || strings.HasSuffix(bad, "/") && strings.HasPrefix(p, bad) {
					found[sf.path] = p
				}
			}
		}
		structTags(sf.file, func(tag reflect.StructTag) {
			if _, ok := tag.Lookup("bson"); ok {
				found[sf.path] = "bson"
			}
		})
	}
	for path, what := range found {
		t.Errorf("%s holds %s: the domain holds types, rules and cases; adapters live outside tenants/", path, what)
	}
}

// TestCasesHoldNoWireShapes: tenants/ops returns plain structs; the API's JSON shapes are
// declared in package api, so no field in tenants/ops carries a json tag.
func TestCasesHoldNoWireShapes(t *testing.T) {
	for _, sf := range moduleSources(t) {
		if sf.pkg != "tenants/ops" {
			continue
		}
		n := 0
		structTags(sf.file, func(tag reflect.StructTag) {
			if _, ok := tag.Lookup("json"); ok {
				n++
			}
		})
		if n > 0 {
			t.Errorf("%s: %d json-tagged fields; wire shapes belong to package api (api/views.go)", sf.path, n)
		}
	}
}

// maxFuncLines bounds a hand-written function, its signature and closing brace included.
const maxFuncLines = 80

// TestFunctionsFitOnAScreen: no hand-written function of the module (tests aside) runs over
// maxFuncLines lines; a longer one is split where its steps are (a command table, a job group).
func TestFunctionsFitOnAScreen(t *testing.T) {
	for _, sf := range moduleSources(t) {
		for _, decl := range sf.file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := sf.fset.Position(fd.End()).Line - sf.fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s has %d lines, at most %d may", sf.path, fd.Name.Name, n, maxFuncLines)
			}
		}
	}
}
