package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/netip"
	"strings"
)

// Device is where a sign-in came from, coarsely: the browser family and operating system, and the network (an
// IPv4 /24 or an IPv6 /48), never the full address. An account's known devices are kept as Hash only.
type Device struct {
	// Hash is an HMAC of Family and Network with a key derived from the server secret: equal for the same browser
	// family on the same network, and telling nothing about either to someone who reads the database.
	Hash    string
	Family  string // "Firefox on Linux"
	Network string // "203.0.113.0/24", "2001:db8:1::/48", or "an unknown network"
}

// Devices tells the Device of a sign-in.
type Devices struct{ key []byte }

// NewDevices derives the key of device hashes from the server secret.
func NewDevices(secret string) (*Devices, error) {
	if len(secret) < 32 {
		return nil, errors.New("notify: the server secret is too short")
	}
	k := sha256.Sum256([]byte("valuator:known-devices:" + secret))
	return &Devices{key: k[:]}, nil
}

// Of is the device of a request from userAgent at ip.
func (d *Devices) Of(userAgent, ip string) Device {
	dev := Device{Family: BrowserFamily(userAgent), Network: Network(ip)}
	m := hmac.New(sha256.New, d.key)
	m.Write([]byte(dev.Family + "\x00" + dev.Network))
	dev.Hash = hex.EncodeToString(m.Sum(nil))
	return dev
}

// Network is the network of an address: its /24 for IPv4 (an IPv4-mapped IPv6 address counts as IPv4) and its
// /48 for IPv6, the blocks a home or office connection keeps while its exact address changes.
func Network(ip string) string {
	addr, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return "an unknown network"
	}
	addr = addr.WithZone("").Unmap()
	bits := 48
	if addr.Is4() {
		bits = 24
	}
	p, err := addr.Prefix(bits)
	if err != nil {
		return "an unknown network"
	}
	return p.String()
}

// BrowserFamily is a coarse reading of a User-Agent: the browser (not its version) and the operating system,
// such as "Chrome on Windows". Versions are left out on purpose: a browser updating itself is not a new device.
func BrowserFamily(ua string) string {
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(ua, x) {
				return true
			}
		}
		return false
	}
	var browser string
	switch {
	case strings.TrimSpace(ua) == "":
		return "an unknown browser"
	case has("Edg/", "EdgA/", "EdgiOS/", "Edge/"):
		browser = "Edge"
	case has("OPR/", "Opera"):
		browser = "Opera"
	case has("SamsungBrowser/"):
		browser = "Samsung Internet"
	case has("Firefox/", "FxiOS/"):
		browser = "Firefox"
	case has("Chrome/", "CriOS/", "Chromium/"):
		browser = "Chrome"
	case has("Safari/") && has("Version/"):
		browser = "Safari"
	case strings.HasPrefix(ua, "curl/"):
		browser = "curl"
	case has("python-requests", "Python-urllib", "aiohttp"):
		browser = "a Python program"
	case strings.HasPrefix(ua, "Go-http-client/"):
		browser = "a Go program"
	case strings.HasPrefix(ua, "node") || has("axios/", "undici"):
		browser = "a Node.js program"
	default:
		browser = "another browser or program"
	}
	var os string
	switch {
	case has("iPhone", "iPad", "iPod"):
		os = "iOS"
	case has("Android"):
		os = "Android"
	case has("CrOS"):
		os = "ChromeOS"
	case has("Windows"):
		os = "Windows"
	case has("Macintosh", "Mac OS X"):
		os = "macOS"
	case has("Linux", "X11"):
		os = "Linux"
	}
	if os == "" {
		return browser
	}
	return browser + " on " + os
}
