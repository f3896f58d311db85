package itest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pki is a throwaway certificate authority made at test time, with a server certificate for
// 127.0.0.1 and localhost and a client certificate, written as PEM files into dir.
type pki struct {
	dir                            string
	caFile, serverCert, serverKey  string
	clientCert, clientKey, otherCA string // otherCA: a second authority that signed nothing here
	caCert                         *x509.Certificate
	caKey                          *ecdsa.PrivateKey
}

func newPKI(t *testing.T, dir string) *pki {
	t.Helper()
	p := &pki{dir: dir}
	p.caCert, p.caKey = selfSigned(t, "mqbench test CA")
	p.caFile = p.writeCert(t, "ca.pem", p.caCert)
	other, _ := selfSigned(t, "another CA")
	p.otherCA = p.writeCert(t, "other-ca.pem", other)
	// The server's certificate may also act as a client: broker scripts probe with it.
	p.serverCert, p.serverKey = p.issue(t, "server", x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
	p.clientCert, p.clientKey = p.issue(t, "client", x509.ExtKeyUsageClientAuth)
	return p
}

func selfSigned(t *testing.T, cn string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

// issue signs a certificate for 127.0.0.1 and localhost with the CA; it returns the files.
func (p *pki) issue(t *testing.T, name string, usage ...x509.ExtKeyUsage) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "mqbench " + name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usage,
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	// PKCS#8, which every broker here reads (Kafka's PEM keystore takes no other form).
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile = filepath.Join(p.dir, name+"-key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p.writeCert(t, name+".pem", c), keyFile
}

// keystore writes the server's key and certificate into one PEM file (the PEM keystore Kafka
// and Artemis read) in dir, named name, and returns its path.
func (p *pki) keystore(t *testing.T, dir, name string) string {
	t.Helper()
	var ks []byte
	for _, f := range []string{p.serverKey, p.serverCert} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, b...)
	}
	path := filepath.Join(dir, name)
	writeFile(t, path, string(ks))
	return path
}

func (p *pki) writeCert(t *testing.T, name string, c *x509.Certificate) string {
	t.Helper()
	f := filepath.Join(p.dir, name)
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func writeFile(t *testing.T, f, text string) {
	t.Helper()
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
