package load

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Reroute is t sent by way of another component (platform.Cold.Via: one
// that raises a function from zero and holds the request until an instance
// serves): base's scheme and host replace t's, base's path prefixes t's
// path, t's query is kept, header is added to a copy of t's. t itself is
// left as it was (the warm requests keep it).
func (t Target) Reroute(base string, header map[string]string) (Target, error) {
	to, err := url.Parse(base)
	if err != nil || to.Host == "" || (to.Scheme != "http" && to.Scheme != "https") {
		return t, fmt.Errorf("cold start route %q is not an http(s) URL", base)
	}
	from, err := url.Parse(t.URL)
	if err != nil {
		return t, fmt.Errorf("cold start route: the function's URL %q: %w", t.URL, err)
	}
	u := *from
	u.Scheme, u.Host, u.User = to.Scheme, to.Host, to.User
	u.Path = strings.TrimSuffix(to.Path, "/") + from.Path
	u.RawPath = ""
	out := t
	out.URL = u.String()
	out.Header = t.Header.Clone()
	if out.Header == nil {
		out.Header = http.Header{}
	}
	for k, v := range header {
		out.Header.Set(k, v)
	}
	return out, nil
}
