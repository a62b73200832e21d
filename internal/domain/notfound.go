package domain

import "errors"

// ErrNotFound is a record that does not exist where it was asked for. The
// store answers it (store.ErrNotFound is this error), and packages that
// must not import the store (internal/auth) recognize it by it.
var ErrNotFound = errors.New("not found")
