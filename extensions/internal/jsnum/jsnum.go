// Package jsnum formats numbers and takes logarithms with JavaScript's semantics, so the reports
// print what lib/*.js printed (same roundings, same chart coordinates), and results' latency
// spelling (results.Micros) rounds as they do.
package jsnum

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ToFixed is JavaScript's Number.prototype.toFixed: d decimals, an exact tie rounded away
// from zero (Go's strconv rounds it to even: 0.125 → "0.12", JavaScript "0.13").
func ToFixed(v float64, d int) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	if v == 0 {
		v = 0 // -0 prints as 0
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if dot := strings.IndexByte(s, '.'); dot >= 0 && len(s)-dot-1 == d+1 && s[len(s)-1] == '5' {
		// Possibly an exact tie: decide on the exact binary value.
		x := new(big.Float).SetPrec(512).SetFloat64(math.Abs(v))
		x.Mul(x, new(big.Float).SetPrec(512).SetFloat64(math.Pow10(d)))
		n, _ := x.Int(nil)
		frac := new(big.Float).SetPrec(512).Sub(x, new(big.Float).SetPrec(512).SetInt(n))
		if frac.Cmp(big.NewFloat(0.5)) == 0 {
			n.Add(n, big.NewInt(1))
			digits := n.String()
			if len(digits) <= d {
				digits = strings.Repeat("0", d-len(digits)+1) + digits
			}
			out := digits
			if d > 0 {
				out = digits[:len(digits)-d] + "." + digits[len(digits)-d:]
			}
			if v < 0 {
				out = "-" + out
			}
			return out
		}
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// String is JavaScript's String(number): the shortest decimal that reads back as v, with an
// exponent below 1e-6 and from 1e21 (1e-7, 1.5e+21).
func String(v float64) string {
	switch a := math.Abs(v); {
	case v == 0:
		return "0"
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 0):
		return map[bool]string{true: "Infinity", false: "-Infinity"}[v > 0]
	case a < 1e-6 || a >= 1e21:
		mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
		sign := exp[:1]
		return mant + "e" + sign + strings.TrimLeft(exp[1:], "0")
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Parse reads back what String or ToFixed wrote.
func Parse(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// Num is lib/format.js num: v with d decimals, "-" when there is no value (NaN).
func Num(v float64, d int) string {
	if math.IsNaN(v) {
		return "-"
	}
	return ToFixed(v, d)
}

// Fmt1 is svgchart.js fmt: Number(n.toFixed(1)), as an SVG attribute.
func Fmt1(n float64) string {
	v, err := strconv.ParseFloat(ToFixed(n, 1), 64)
	if err != nil {
		return "0"
	}
	return String(v)
}

// Log10 is V8's Math.log10 (fdlibm e_log10.c): exact at powers of ten, unlike Go's
// math.Log10 (math.Log10(1e15) = 14.999999999999998), and bit for bit what the browser-side
// charts computed.
func Log10(x float64) float64 {
	const (
		two54    = 1.80143985094819840000e+16
		ivln10   = 4.34294481903251816668e-01
		log102hi = 3.01029995663611771306e-01
		log102lo = 3.69423907715893078616e-13
	)
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log10(x)
	}
	bits := math.Float64bits(x)
	hx, lx, k := int32(bits>>32), uint32(bits), int32(0)
	if hx < 0x00100000 { // subnormal
		k -= 54
		x *= two54
		bits = math.Float64bits(x)
		hx, lx = int32(bits>>32), uint32(bits)
	}
	if hx == 0x3FF00000 && lx == 0 {
		return 0
	}
	k += (hx >> 20) - 1023
	i := int32(uint32(k) >> 31)
	hx = (hx & 0x000FFFFF) | ((0x3FF - i) << 20)
	y := float64(k + i)
	x = math.Float64frombits(uint64(uint32(hx))<<32 | uint64(lx))
	// Explicit conversions keep the compiler from fusing multiply-adds.
	z := float64(y*log102lo) + float64(ivln10*logE(x))
	return z + float64(y*log102hi)
}

// logE is fdlibm's e_log.c (what V8's Math.log runs), for Log10.
func logE(x float64) float64 {
	const (
		ln2hi = 6.93147180369123816490e-01
		ln2lo = 1.90821492927058770002e-10
		two54 = 1.80143985094819840000e+16
		lg1   = 6.666666666666735130e-01
		lg2   = 3.999999999940941908e-01
		lg3   = 2.857142874366239149e-01
		lg4   = 2.222219843214978396e-01
		lg5   = 1.818357216161805012e-01
		lg6   = 1.531383769920937332e-01
		lg7   = 1.479819860511658591e-01
	)
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log(x)
	}
	bits := math.Float64bits(x)
	hx, lx, k := int32(bits>>32), uint32(bits), int32(0)
	if hx < 0x00100000 {
		k -= 54
		x *= two54
		bits = math.Float64bits(x)
		hx, lx = int32(bits>>32), uint32(bits)
	}
	k += (hx >> 20) - 1023
	hx &= 0x000FFFFF
	i := (hx + 0x95F64) & 0x100000
	x = math.Float64frombits(uint64(uint32(hx|(i^0x3FF00000)))<<32 | uint64(lx)) // x or x/2 in [sqrt(2)/2, sqrt(2))
	k += i >> 20
	f := x - 1.0
	dk := float64(k)
	if (0x000FFFFF & (2 + hx)) < 3 { // -2**-20 <= f < 2**-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			return float64(dk*ln2hi) + float64(dk*ln2lo)
		}
		r := float64(float64(f*f) * float64(0.5-float64(0.33333333333333333*f)))
		if k == 0 {
			return f - r
		}
		return float64(dk*ln2hi) - ((r - float64(dk*ln2lo)) - f)
	}
	s := f / (2.0 + f)
	z := float64(s * s)
	i = hx - 0x6147A
	w := float64(z * z)
	j := 0x6B851 - hx
	t1 := float64(w * float64(lg2+float64(w*float64(lg4+float64(w*lg6)))))
	t2 := float64(z * float64(lg1+float64(w*float64(lg3+float64(w*float64(lg5+float64(w*lg7)))))))
	i |= j
	r := t2 + t1
	if i > 0 {
		hfsq := float64(float64(0.5*f) * f)
		if k == 0 {
			return f - (hfsq - float64(s*(hfsq+r)))
		}
		return float64(dk*ln2hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(dk*ln2lo))) - f)
	}
	if k == 0 {
		return f - float64(s*(f-r))
	}
	return float64(dk*ln2hi) - ((float64(s*(f-r)) - float64(dk*ln2lo)) - f)
}
