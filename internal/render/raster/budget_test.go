package raster

import "testing"

func TestBudget(t *testing.T) {
	t.Run("limit", func(t *testing.T) {
		b := NewBudget(nil, 100)
		if !b.Spend(60) || !b.Spend(40) {
			t.Fatal("stopped within its limit")
		}
		if b.Spend(1) {
			t.Fatal("went on past its limit")
		}
		if !b.Exceeded() || !b.Stopped() {
			t.Error("not marked as exceeded")
		}
		if b.Spend(0) {
			t.Error("went on after stopping")
		}
	})
	t.Run("negative work counts as none", func(t *testing.T) {
		b := NewBudget(nil, 10)
		b.Spend(-1000)
		if b.Used() != 0 || !b.Spend(10) || b.Spend(1) {
			t.Errorf("used %d", b.Used())
		}
		b = NewBudget(nil, 10)
		if !b.SpendArea(5, 5, 0, 9, 3) || b.Used() != 0 {
			t.Errorf("an empty box spent %d units", b.Used())
		}
		if !b.SpendArea(0, 0, 2, 1, 3) || b.Used() != 6 {
			t.Errorf("a box of 2 pixels of 3 units spent %d", b.Used())
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		done := make(chan struct{})
		b := NewBudget(done, 0)
		if !b.Spend(checkEvery / 2) {
			t.Fatal("stopped before done was closed")
		}
		close(done)
		// Seen at the next look, at most checkEvery units later.
		stopped := false
		for range 3 {
			if !b.Spend(checkEvery / 2) {
				stopped = true
				break
			}
		}
		if !stopped || b.Exceeded() || !b.Stopped() {
			t.Errorf("stopped %v, exceeded %v", stopped, b.Exceeded())
		}
	})
	t.Run("nil", func(t *testing.T) {
		var b *Budget
		if !b.Spend(1<<40) || b.Stopped() || b.Exceeded() {
			t.Error("a nil budget bounds")
		}
	})
}

// TestBudgetStopsDrawing: a canvas whose budget has stopped draws nothing
// more, and a line triangle wider than its budget is cut short.
func TestBudgetStopsDrawing(t *testing.T) {
	done := make(chan struct{})
	close(done)
	cv := NewCanvas(64, 64)
	cv.Budget = NewBudget(done, 0)
	cv.Budget.Stopped()
	red := Color{R: 1, A: 1}
	cv.Fill(red, 1)
	cv.FillPolygon([][]Point{{{0, 0}, {64, 0}, {64, 64}, {0, 64}}}, red, 1)
	cv.Circle(Point{32, 32}, 20, 0, 0, 0, red, red, 1, 1)
	tri := [3]LineVertex{{X: -100, Y: -100, NY: 1}, {X: 200, Y: -100, NY: 1}, {X: -100, Y: 200, NY: -1}}
	cv.LineTriangle(&tri, nil, &LinePaint{Outset: 10, Blur2: 1, Color: red, Opacity: 1})
	for i, p := range cv.Pix {
		if p != 0 {
			t.Fatalf("byte %d drawn after the budget stopped", i)
		}
	}
	// 10 rows of 64 pixels, and the triangle's 3 edges a row.
	cv = NewCanvas(64, 64)
	cv.Budget = NewBudget(nil, 10*(64+3))
	cv.LineTriangle(&tri, nil, &LinePaint{Outset: 1000, Blur2: 1, Color: red, Opacity: 1})
	rows := 0
	for y := range 64 {
		if cv.RGBAAt(0, y).A != 0 {
			rows++
		}
	}
	if rows != 10 || !cv.Budget.Exceeded() {
		t.Errorf("%d rows drawn, exceeded %v; want 10 rows and the budget exceeded", rows, cv.Budget.Exceeded())
	}
}
