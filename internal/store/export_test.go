package store

// CheckScheme is checkScheme, for the fuzz target in store_test.
var CheckScheme = checkScheme
