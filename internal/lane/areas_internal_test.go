package lane

// allAreas is every area, set by the external test package's init: the
// areas import the lane, so an internal test cannot import them.
var allAreas []Area

// SetAllAreas is how the external test package hands the areas over.
func SetAllAreas(a []Area) { allAreas = a }

// newFull is New with every area.
func newFull(o Options) *Lane {
	o.Areas = allAreas
	return New(o)
}
