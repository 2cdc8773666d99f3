package fbrt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// OpenWhisk's action interface (apache/openwhisk docs/actions-new.md,
// "Action Interface"): a server on port 8080 with POST /init, called once
// per container with {"value": {"name", "main", "code", "binary", "env"}},
// and POST /run with {"value": params, "namespace", "action_name",
// "activation_id", "deadline", ...}, answering 200 with a JSON object, or
// another status with {"error": ...}. A web action with raw HTTP
// (core/controller/.../WebActions.scala) passes the request as __ow_method,
// __ow_headers, __ow_path, __ow_query and __ow_body, and reads the result's
// statusCode, headers and body.

// owLogEnd ends an activation's log on stdout and stderr (the invoker reads
// the logs up to it).
const owLogEnd = "XXX_THE_END_OF_A_WHISK_ACTIVATION_XXX"

// ActionProxyConfig configures ActionProxy.
type ActionProxyConfig struct {
	// Argv starts the function's server (which speaks the function contract
	// and announces its port on FB_READY_FD).
	Argv []string
	// Stdout and Stderr receive the function's output and the end-of-
	// activation markers (os.Stdout and os.Stderr when nil).
	Stdout, Stderr io.Writer
	// InitTimeout bounds the function's start in /init (default 5 min; the
	// platform's own action timeout usually ends it first).
	InitTimeout time.Duration
}

// ActionProxy serves OpenWhisk's action interface on Listen's address in
// front of a function server: /init starts Argv (so the activation's
// initTime is the function's own start) and waits until it listens; /run
// turns the activation into an HTTP request to it and its reply into a web
// action result. Requests to /run may overlap (the action's concurrency
// limit). It returns when the listener fails or the function exits; the
// function is stopped when ctx ends.
func ActionProxy(ctx context.Context, cfg ActionProxyConfig) error {
	if len(cfg.Argv) == 0 {
		return errors.New("fbrt: action proxy: no function command")
	}
	ln, err := Listen()
	if err != nil {
		return err
	}
	p := newActionProxy(cfg)
	return serveFront(ctx, ln, p, p.fn, "action proxy")
}

type actionProxy struct {
	cfg    ActionProxyConfig
	fn     *child
	client *http.Client
	logMu  sync.Mutex
}

func newActionProxy(cfg ActionProxyConfig) *actionProxy {
	fn := newChild(cfg.Argv, cfg.Stdout, cfg.Stderr, cfg.InitTimeout)
	cfg.Stdout, cfg.Stderr = fn.stdout, fn.stderr
	return &actionProxy{cfg: cfg, fn: fn,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}}}
}

func (p *actionProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/init":
		p.init(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/run":
		p.run(w, r)
	default:
		owError(w, http.StatusNotFound, "not an action interface route: "+r.Method+" "+r.URL.Path)
	}
}

func owError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

type owInit struct {
	Value struct {
		Name   string                     `json:"name"`
		Main   string                     `json:"main"`
		Code   string                     `json:"code"`
		Binary bool                       `json:"binary"`
		Env    map[string]json.RawMessage `json:"env"`
	} `json:"value"`
}

func (p *actionProxy) init(w http.ResponseWriter, r *http.Request) {
	var in owInit
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		owError(w, http.StatusBadRequest, "init: the body is not the init JSON object: "+err.Error())
		return
	}
	env, err := owEnv(in.Value.Env)
	if err != nil {
		owError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := p.fn.start(r.Context(), env); err != nil {
		if errors.Is(err, errStartedOnce) {
			owError(w, http.StatusForbidden, "Cannot initialize the action more than once.")
			return
		}
		owError(w, http.StatusBadGateway, "init: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"ok":true}`))
}

// owEnv turns init's env (strings, or any JSON value, written as JSON) into
// KEY=value pairs.
func owEnv(m map[string]json.RawMessage) ([]string, error) {
	out := make([]string, 0, len(m))
	for k, raw := range m {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("init: env name %q is not a variable name", k)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			s = string(raw)
		}
		out = append(out, k+"="+s)
	}
	return out, nil
}

type owRun struct {
	Value        map[string]json.RawMessage `json:"value"`
	ActivationID string                     `json:"activation_id"`
	Deadline     json.RawMessage            `json:"deadline"`
}

// owResult is a web action's HTTP result.
type owResult struct {
	StatusCode int               `json:"statusCode"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
}

func (p *actionProxy) run(w http.ResponseWriter, r *http.Request) {
	base := p.fn.address()
	if base == nil {
		owError(w, http.StatusInternalServerError, "run: the action is not initialised (no successful /init)")
		return
	}
	var in owRun
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		owError(w, http.StatusBadRequest, "run: the body is not the run JSON object: "+err.Error())
		return
	}
	ctx := r.Context()
	if d, ok := owDeadline(in.Deadline); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d)
		defer cancel()
	}
	res, err := p.forward(ctx, base.String(), in.Value)
	p.logEnd()
	if err != nil {
		owError(w, http.StatusBadGateway, "run: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}

// owDeadline reads the activation's deadline (ms since the epoch, as a
// number or a string).
func owDeadline(raw json.RawMessage) (time.Time, bool) {
	s := strings.Trim(string(raw), `"`)
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil || ms <= 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}

// owRequest is the raw HTTP request a web action received.
type owRequest struct {
	method, path, query string
	headers             map[string]string
	body                []byte
}

// owWebRequest reads the __ow_ fields of a raw web action; an activation
// without them (a plain invoke with parameters) becomes a POST of the
// parameters as JSON.
func owWebRequest(v map[string]json.RawMessage) (owRequest, error) {
	req := owRequest{method: "POST", path: "/", headers: map[string]string{}}
	rawMethod, web := v["__ow_method"]
	if !web {
		b, err := json.Marshal(v)
		if err != nil {
			return req, err
		}
		req.headers["content-type"] = "application/json"
		req.body = b
		return req, nil
	}
	str := func(name string) (string, error) {
		raw, ok := v[name]
		if !ok || string(raw) == "null" {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%s is not a string", name)
		}
		return s, nil
	}
	var err error
	if err = json.Unmarshal(rawMethod, &req.method); err != nil {
		return req, errors.New("__ow_method is not a string")
	}
	req.method = strings.ToUpper(req.method)
	if req.path, err = str("__ow_path"); err != nil {
		return req, err
	}
	if !strings.HasPrefix(req.path, "/") {
		req.path = "/" + req.path
	}
	if req.query, err = str("__ow_query"); err != nil {
		return req, err
	}
	if raw, ok := v["__ow_headers"]; ok {
		if err := json.Unmarshal(raw, &req.headers); err != nil {
			return req, errors.New("__ow_headers is not an object of strings")
		}
	}
	body, err := str("__ow_body")
	if err != nil {
		return req, err
	}
	if owBinaryRequest(req.headers["content-type"]) {
		if req.body, err = base64.StdEncoding.DecodeString(body); err != nil {
			return req, fmt.Errorf("__ow_body of a %q request is not base64: %v", req.headers["content-type"], err)
		}
	} else {
		req.body = []byte(body)
	}
	return req, nil
}

// owBinaryRequest says whether the controller base64-encoded a raw web
// action's body: for binary media types and, for legacy reasons, for
// application/json (WebActions.scala, extractEntityAndProcessRequest). The
// textual types here are Akka HTTP's with a charset: text/*, forms, XML and
// JavaScript. A body without a content type is application/octet-stream to
// Akka: binary.
func owBinaryRequest(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return true
	}
	switch {
	case strings.HasPrefix(mt, "text/"),
		mt == "application/x-www-form-urlencoded",
		mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/javascript":
		return false
	}
	return true
}

// owHop lists headers that describe one HTTP hop, not the request.
var owHop = map[string]bool{"host": true, "content-length": true, "connection": true, "transfer-encoding": true,
	"keep-alive": true, "te": true, "upgrade": true, "accept-encoding": true, "date": true}

func (p *actionProxy) forward(ctx context.Context, base string, value map[string]json.RawMessage) (*owResult, error) {
	in, err := owWebRequest(value)
	if err != nil {
		return nil, err
	}
	url := base + in.path
	if in.query != "" {
		url += "?" + in.query
	}
	req, err := http.NewRequestWithContext(ctx, in.method, url, bytes.NewReader(in.body))
	if err != nil {
		return nil, err
	}
	for k, v := range in.headers {
		if !owHop[strings.ToLower(k)] {
			req.Header.Set(k, v)
		}
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the function did not answer: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the function's reply: %w", err)
	}
	return owResponse(resp.StatusCode, resp.Header, body), nil
}

// owResponse makes the web action result of the function's reply. The
// controller passes a body as is for a textual content type and base64-
// decodes it otherwise (WebActions.scala, interpretHttpResponse; JSON too,
// when the string is base64): text that is valid UTF-8 goes as is,
// everything else as base64 with a binary content type.
func owResponse(status int, h http.Header, body []byte) *owResult {
	res := &owResult{StatusCode: status, Headers: make(map[string]string, len(h))}
	for k, vs := range h {
		if !owHop[strings.ToLower(k)] && len(vs) > 0 {
			res.Headers[k] = strings.Join(vs, ", ")
		}
	}
	if len(body) == 0 {
		return res
	}
	ct := h.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if strings.HasPrefix(mt, "text/") && utf8.Valid(body) {
		res.Body = string(body)
		return res
	}
	if mt == "" || strings.HasPrefix(mt, "text/") {
		res.Headers["Content-Type"] = "application/octet-stream"
	}
	res.Body = base64.StdEncoding.EncodeToString(body)
	return res
}

// logEnd writes the end-of-activation markers.
func (p *actionProxy) logEnd() {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	fmt.Fprintln(p.cfg.Stdout, owLogEnd)
	fmt.Fprintln(p.cfg.Stderr, owLogEnd)
}
