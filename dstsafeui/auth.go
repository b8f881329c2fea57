package dstsafeui

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

const (
	tokenCookie   = "dstsafe_ui_token"
	sessionCookie = "dstsafe_ui_session"
)

// authorized lets r through, or answers it and returns false. With a
// token, the request must carry it (bearer, cookie, or ?token= once, which
// sets the cookie and redirects to the same page without it). Without
// one, the client and the Host it asked for must both be loopback: a
// remote client has nothing vouching for it, and a page of another site
// whose name was rebound to 127.0.0.1 (DNS rebinding) asks for its own
// Host.
func (u *ui) authorized(w http.ResponseWriter, r *http.Request) bool {
	if u.opts.Token == "" {
		if !loopbackAddr(r.RemoteAddr) {
			http.Error(w, "401 unauthorized: dstsafe ui serves clients beyond loopback only with an access token (--token or DSTSAFE_UI_TOKEN)", http.StatusUnauthorized)
			return false
		}
		if !loopbackHost(r.Host) {
			http.Error(w, "421 misdirected: without an access token dstsafe ui answers only to a loopback host name (localhost, 127.0.0.1, [::1])", http.StatusMisdirectedRequest)
			return false
		}
		return true
	}
	if q := r.URL.Query().Get("token"); q != "" && r.Method == http.MethodGet {
		if !u.tokenOK(q) {
			http.Error(w, "401 unauthorized: wrong access token", http.StatusUnauthorized)
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		v := r.URL.Query()
		v.Del("token")
		target := "." + r.URL.Path
		if i := strings.LastIndexByte(r.URL.Path, '/'); i >= 0 {
			target = "./" + r.URL.Path[i+1:]
		}
		if enc := v.Encode(); enc != "" {
			target += "?" + enc
		}
		seeOther(w, target)
		return false
	}
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && u.tokenOK(auth) {
		return true
	}
	if c, err := r.Cookie(tokenCookie); err == nil && u.tokenOK(c.Value) {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="dstsafe ui"`)
	http.Error(w, "401 unauthorized: dstsafe ui needs its access token (open a page once with ?token=..., or send Authorization: Bearer ...)", http.StatusUnauthorized)
	return false
}

func (u *ui) tokenOK(got string) bool {
	a := sha256.Sum256([]byte(got))
	b := sha256.Sum256([]byte(u.opts.Token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// loopbackAddr reports whether a RemoteAddr ("127.0.0.1:5123") is on the
// loopback interface.
func loopbackAddr(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// loopbackHost reports whether a Host header names the loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// session returns r's session id, setting a new one on w when r has none:
// the CSRF token of every form is an HMAC of it.
func (u *ui) session(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(sessionCookie); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	return id
}

// csrfToken is the token the forms of session carry.
func (u *ui) csrfToken(session string) string {
	m := hmac.New(sha256.New, u.csrfKey)
	m.Write([]byte("dstsafe ui csrf\x00" + session))
	return hex.EncodeToString(m.Sum(nil))
}

// csrfOK checks a POST: from this UI's own origin (Sec-Fetch-Site,
// Origin; http.CrossOriginProtection) and with the CSRF token of the
// session cookie it carries.
func (u *ui) csrfOK(r *http.Request) bool {
	if u.crossOri.Check(r) != nil {
		return false
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return false
	}
	want := u.csrfToken(c.Value)
	return hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(want))
}

// seeOther redirects to target as given: http.Redirect would make a
// relative target absolute from the request's path, which is wrong when
// the handler is mounted under a prefix (http.StripPrefix).
func seeOther(w http.ResponseWriter, target string) {
	w.Header().Set("Location", target)
	w.WriteHeader(http.StatusSeeOther)
}
