package main

import (
	"net"
	"net/netip"
)

// adminLoginURL is the sign-in page's full URL as a person on the server's host opens it: an
// address that listens everywhere (":8080", "0.0.0.0:8080") reads as localhost.
func adminLoginURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "/admin/login"
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/admin/login"
}
