package limiters

// Size returns how many limiters are recorded (for the external tests).
func Size() int {
	n := 0
	registry.Range(func(any, any) bool { n++; return true })
	return n
}
