// Package scaleout proves that Perform runs as several instances: two real
// `perform serve` processes on one PostgreSQL and one Redis behind a real
// HAProxy (the configuration docs/deployment.md shows, haproxy.cfg.tmpl),
// under load, with one instance killed and restarted and another stopped
// gracefully, the rate limits shared and the WhatsApp assistant's bursts
// answered once.
//
// The test needs PostgreSQL, Redis and the haproxy binary and takes about a
// minute, so it builds only with the scaleout tag:
//
//	go test -tags scaleout -v ./internal/scaleout
//
// .ci/scale-out installs HAProxy when it is missing and runs it. The
// everyday go test ./... runs only the check that the deployment page shows
// this package's HAProxy configuration.
package scaleout
