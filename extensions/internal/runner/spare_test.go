package runner

import "testing"

// A producer hands back the bodies of acknowledged messages last in, first out, keeps at most
// maxSpare of them, and has none to give before the first acknowledgement.
func TestSpareBodies(t *testing.T) {
	p := &producer{}
	if b := p.takeSpare(); b != nil {
		t.Fatalf("a new producer gave %v", b)
	}
	p.giveSpare(nil) // a body that is not the producer's to reuse
	a, b := make([]byte, 8), make([]byte, 8)
	p.giveSpare(a)
	p.giveSpare(b)
	if got := p.takeSpare(); &got[0] != &b[0] {
		t.Error("the last body given back did not come first")
	}
	if got := p.takeSpare(); &got[0] != &a[0] {
		t.Error("the first body given back did not come second")
	}
	if got := p.takeSpare(); got != nil {
		t.Errorf("got %v from an empty stack", got)
	}
	for range maxSpare + 10 {
		p.giveSpare(make([]byte, 1))
	}
	if len(p.spare) != maxSpare {
		t.Errorf("kept %d bodies, want at most %d", len(p.spare), maxSpare)
	}
}
