package ogc

import (
	"fmt"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

func fmtSscan(s string, v *int) (int, error) { return fmt.Sscan(s, v) }
