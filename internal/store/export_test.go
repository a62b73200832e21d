package store

// CheckScheme is checkScheme, for the fuzz target in store_test.
var CheckScheme = checkScheme

// Rebind is rebind, for tests writing SQL of their own.
var Rebind = rebind
