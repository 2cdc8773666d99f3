package load

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
)

// Class is the outcome class of one request. Every request gets exactly one,
// and latency is kept per class so failed requests never vanish from figures.
type Class uint8

// The outcome classes (DESIGN.md "Error classes").
const (
	ClassOK            Class = iota // 2xx/3xx and no function error
	ClassConnect                    // could not connect
	ClassTimeout                    // the client's own timeout fired
	ClassReset                      // connection reset or closed mid-request
	Class4xx                        // 4xx other than 429
	Class429                        // 429 Too Many Requests
	Class5xx                        // 5xx other than 502/503/504
	Class502                        // 502 Bad Gateway
	Class503                        // 503 Service Unavailable
	Class504                        // 504 Gateway Timeout
	ClassFunctionError              // the function said it failed (X-Fb-Error)
	ClassValidation                 // the response body failed validation
	ClassGeneratorLag               // not sent on time because the generator was behind
	ClassOther                      // any other transport error
	ClassOOMKill                    // the platform says the instance was killed for exceeding its memory (X-Fb-Platform-Error: oom-kill)
	ClassNotReady                   // the platform accepted the request but answered before its result (Options.NotReadyStatus: OpenWhisk's 202 "Response not yet ready")
	NumClasses
)

var classNames = [NumClasses]string{
	"ok", "connect", "timeout", "reset", "http-4xx", "http-429", "http-5xx",
	"http-502", "http-503", "http-504", "function-error", "validation", "generator-lag", "other", "oom-kill", "not-ready",
}

// String returns the class name used in every output file.
func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return "unknown"
}

// ParseClass is the inverse of String.
func ParseClass(s string) (Class, bool) {
	for i, n := range classNames {
		if n == s {
			return Class(i), true
		}
	}
	return 0, false
}

// classOfPlatformError refines a 5xx by the platform's own reason.
func classOfPlatformError(c Class, reason []byte) Class {
	if c >= Class5xx && c <= Class504 && string(reason) == "oom-kill" { // the comparison does not allocate
		return ClassOOMKill
	}
	return c
}

// ClassOfStatus classifies a completed HTTP exchange.
func ClassOfStatus(status int) Class {
	switch {
	case status < 400:
		return ClassOK
	case status == http.StatusTooManyRequests:
		return Class429
	case status < 500:
		return Class4xx
	case status == http.StatusBadGateway:
		return Class502
	case status == http.StatusServiceUnavailable:
		return Class503
	case status == http.StatusGatewayTimeout:
		return Class504
	default:
		return Class5xx
	}
}

// ClassOfError classifies a transport error. context.Canceled is not an
// outcome of the server: callers check for it before classifying.
func ClassOfError(err error) Class {
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return ClassTimeout
	case errors.As(err, &oe) && oe.Op == "dial":
		return ClassConnect
	case errors.Is(err, syscall.ECONNREFUSED):
		return ClassConnect
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ClassReset
	case errors.As(err, &ne) && ne.Timeout():
		return ClassTimeout
	case strings.Contains(err.Error(), "server closed idle connection"),
		strings.Contains(err.Error(), "connection reset"):
		return ClassReset
	default:
		return ClassOther
	}
}
