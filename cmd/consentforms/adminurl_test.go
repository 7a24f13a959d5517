package main

import "testing"

func TestAdminLoginURL(t *testing.T) {
	for addr, want := range map[string]string{
		":8080": "http://localhost:8080/admin/login", "0.0.0.0:80": "http://localhost:80/admin/login",
		"[::]:8080": "http://localhost:8080/admin/login", "127.0.0.1:9000": "http://127.0.0.1:9000/admin/login",
		"admin.example.org:8443": "http://admin.example.org:8443/admin/login", "nonsense": "/admin/login",
	} {
		if got := adminLoginURL(addr); got != want {
			t.Errorf("adminLoginURL(%q) = %q, want %q", addr, got, want)
		}
	}
}
