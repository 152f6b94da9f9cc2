// Package netguard says which network addresses the server must not send requests to on a caller's behalf (a
// batch job's webhook): every special-purpose range of the IANA IPv4 and IPv6 special-purpose address registries
// (RFC 6890 and its updates) that is not a public destination on the internet. A webhook URL that reached one
// could make the server call its own network: loopback, private and link-local hosts, the cloud metadata
// service at 169.254.169.254, a carrier's shared address space, or such a host through an IPv6 translation
// prefix. It is pure: no I/O.
package netguard

import "net/netip"

// refused are the ranges no webhook may reach, with the registry's name for each.
var refused = []struct {
	prefix netip.Prefix
	name   string
}{
	// IPv4.
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private use"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (carrier-grade NAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private use"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation (TEST-NET-1)"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private use"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation (TEST-NET-2)"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation (TEST-NET-3)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("255.255.255.255/32"), "limited broadcast"},

	// IPv6. IPv4-mapped addresses (::ffff:0:0/96) are not listed: Refused checks the IPv4 address they carry.
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	// IPv4-compatible addresses (deprecated by RFC 4291) have no use on the internet; ::/128 and ::1 are in it.
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)"},
	{netip.MustParsePrefix("64:ff9b::/96"), "IPv4/IPv6 translation (NAT64)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use IPv4/IPv6 translation"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments (Teredo among them)"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("fc00::/7"), "unique local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local unicast"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Refused reports whether a webhook must not be sent to addr: an invalid address, or one in a special-purpose
// range. An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged by the IPv4 address it carries, and a zone
// (fe80::1%eth0) does not hide the address from the check.
func Refused(addr netip.Addr) bool {
	_, bad := Range(addr)
	return bad
}

// Range is the name of the special-purpose range addr is in, and whether it is refused.
func Range(addr netip.Addr) (string, bool) {
	if !addr.IsValid() {
		return "not an address", true
	}
	addr = addr.WithZone("").Unmap()
	for _, r := range refused {
		if r.prefix.Contains(addr) {
			return r.name, true
		}
	}
	return "", false
}
