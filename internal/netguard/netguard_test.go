package netguard

import (
	"net/netip"
	"testing"
)

func TestRefused(t *testing.T) {
	for _, tt := range []struct {
		addr string
		want bool
	}{
		// Public destinations.
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"93.184.216.34", false},
		{"100.63.255.255", false}, // just below the shared address space
		{"100.128.0.0", false},    // just above it
		{"172.15.255.255", false},
		{"172.32.0.0", false},
		{"192.0.1.1", false},
		{"192.88.98.255", false},
		{"198.17.255.255", false},
		{"198.20.0.0", false},
		{"223.255.255.255", false},
		{"2606:4700:4700::1111", false},
		{"2a00:1450:4001:82a::200e", false},
		{"::ffff:8.8.8.8", false},
		{"2001:200::1", false}, // just past 2001::/23
		{"64:ff9b:2::1", false},

		// IPv4 special-purpose ranges, each at its edges.
		{"0.0.0.0", true},
		{"0.255.255.255", true},
		{"10.0.0.1", true},
		{"10.255.255.255", true},
		{"100.64.0.0", true},
		{"100.100.100.200", true}, // a cloud metadata address in the shared space
		{"100.127.255.255", true},
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"169.254.169.254", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.0.0.8", true},
		{"192.0.2.1", true},
		{"192.88.99.1", true},
		{"192.168.1.1", true},
		{"198.18.0.1", true},
		{"198.19.255.255", true},
		{"198.51.100.7", true},
		{"203.0.113.9", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},

		// IPv6 special-purpose ranges.
		{"::", true},
		{"::1", true},
		{"::10.0.0.1", true},       // IPv4-compatible
		{"::ffff:127.0.0.1", true}, // IPv4-mapped loopback
		{"::ffff:169.254.169.254", true},
		{"::ffff:100.64.1.1", true},
		{"64:ff9b::a00:1", true},   // NAT64 of 10.0.0.1
		{"64:ff9b::808:808", true}, // NAT64, even of a public address: it reaches whatever the translator reaches
		{"64:ff9b:1::1", true},
		{"100::1", true},
		{"2001::1", true},          // Teredo
		{"2001:1ff:ffff::1", true}, // end of 2001::/23
		{"2001:db8::1", true},
		{"2002:a00:1::1", true}, // 6to4 of 10.0.0.1
		{"fc00::1", true},
		{"fd12:3456:789a::1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true}, // a zone does not hide it
		{"febf:ffff::1", true},
		{"ff02::1", true},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			addr, err := netip.ParseAddr(tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			if got := Refused(addr); got != tt.want {
				name, _ := Range(addr)
				t.Errorf("Refused(%s) = %v, want %v (range %q)", tt.addr, got, tt.want, name)
			}
		})
	}
	if !Refused(netip.Addr{}) {
		t.Error("the zero Addr is not refused")
	}
}
