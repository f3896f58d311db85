package scenario

import "strings"

// closest returns the candidate nearest to s by edit distance, or "" when none is close
// enough to be a plausible typo. Comparison ignores case and treats '-' like '_', so
// "maxVus" and "max-vus" both point at "max_vus".
func closest(s string, candidates []string) string {
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "-", "_") }
	ns := norm(s)
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(ns, norm(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	// Allow about one edit per three characters (at least 2): "durration" → "duration",
	// but "foo" does not become "url".
	limit := len(ns) / 3
	if limit < 2 {
		limit = 2
	}
	if bestDist < 0 || bestDist > limit || bestDist >= len(ns) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
