// Package traineetest proves the trainee tool set end to end: a real
// Perform server on 127.0.0.1 (the lane, the sign-in, the authorization
// server and /mcp, as `perform serve` mounts them) over the demo's year of
// training, trainees signed in over OAuth by the tests as a browser would
// (phone, the one-time code from the log, consent, PKCE S256, the token
// endpoint), and the MCP Go SDK as their client. The package holds only
// tests.
package traineetest
