package experiment

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
)

// reroute sends t by r (platform.Cold.Via): r's scheme and host replace
// t's, r's path prefixes t's path, t's query is kept, r's headers are added
// to a copy of t's. t itself is left as it was (the warm requests keep it).
func reroute(t load.Target, r *platform.Route) (load.Target, error) {
	if r == nil {
		return t, nil
	}
	to, err := url.Parse(r.URL)
	if err != nil || to.Host == "" || (to.Scheme != "http" && to.Scheme != "https") {
		return t, fmt.Errorf("cold start route %q is not an http(s) URL", r.URL)
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
	for k, v := range r.Header {
		out.Header.Set(k, v)
	}
	return out, nil
}
