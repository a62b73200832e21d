package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsComparedWithIs: an error is compared with a sentinel through
// errors.Is, never == or !=, which misses a wrapped one (a store error
// wrapped with the id it concerns, a driver's wrapped sql.ErrNoRows). It
// reads every Go file of the module and reports err == ErrX, err != io.EOF
// and the like; a value recovered from a panic (not named err) may still
// be compared with http.ErrAbortHandler, as net/http does.
func TestErrorsComparedWithIs(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			if !ok || (b.Op != token.EQL && b.Op != token.NEQ) {
				return true
			}
			if (errorVar(b.X) && sentinel(b.Y)) || (errorVar(b.Y) && sentinel(b.X)) {
				t.Errorf("%s: an error compared with %s; use errors.Is", fset.Position(b.Pos()), b.Op)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("read %d Go files under %s; the walk missed the module", checked, root)
	}
}

// errorVar is a variable named like an error: err, err2, readErr, e.Err.
func errorVar(x ast.Expr) bool {
	var name string
	switch v := x.(type) {
	case *ast.Ident:
		name = v.Name
	case *ast.SelectorExpr:
		name = v.Sel.Name
	default:
		return false
	}
	lower := strings.ToLower(name)
	return strings.HasPrefix(lower, "err") || strings.HasSuffix(lower, "err")
}

// sentinel is an error value by convention: ErrX, pkg.ErrX, io.EOF, redis.Nil.
func sentinel(x ast.Expr) bool {
	switch v := x.(type) {
	case *ast.Ident:
		return strings.HasPrefix(v.Name, "Err")
	case *ast.SelectorExpr:
		pkg, _ := v.X.(*ast.Ident)
		return strings.HasPrefix(v.Sel.Name, "Err") ||
			(pkg != nil && ((pkg.Name == "io" && v.Sel.Name == "EOF") || (pkg.Name == "redis" && v.Sel.Name == "Nil")))
	}
	return false
}
