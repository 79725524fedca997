package coords

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParseTransform(t *testing.T) {
	good := []struct {
		coords, params string
		want           TransformRequest
	}{
		{"8.5,47.3", "", TransformRequest{Points: []Point{{8.5, 47.3, 0}}, Source: Ref{"EPSG", "4326"}, Target: Ref{"EPSG", "4326"}}},
		{"8.5,47.3,100;-1e3, 2.5", "s_srs=4326&t_srs=2056", TransformRequest{Points: []Point{{8.5, 47.3, 100}, {-1000, 2.5, 0}}, Source: Ref{"EPSG", "4326"}, Target: Ref{"EPSG", "2056"}}},
		{"7.4,46.9", "s_srs=4150&ops=1676|EPSG:1618", TransformRequest{Points: []Point{{7.4, 46.9, 0}}, Source: Ref{"EPSG", "4150"}, Target: Ref{"EPSG", "4326"}, Ops: []Ref{{"EPSG", "1676"}, {"EPSG", "1618"}}}},
	}
	for _, c := range good {
		q, _ := url.ParseQuery(c.params)
		got, err := ParseTransform(c.coords, q)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q %q: %+v %v, want %+v", c.coords, c.params, got, err, c.want)
		}
	}
	bad := []struct{ coords, params, msg string }{
		{"", "", "no coordinates"},
		{"1", "", "not x,y"},
		{"1,2,3,4", "", "not x,y"},
		{"1,2;", "", "not x,y"},
		{"a,2", "", "not a finite number"},
		{"1,NaN", "", "finite"},
		{"1,Inf", "", "finite"},
		{"1,1e999", "", "finite"},
		{strings.Repeat("1,2;", 50) + "1,2", "", "51 coordinates: at most 50"},
		{"1,2", "s_srs=abc", "s_srs is an EPSG code"},
		{"1,2", "t_srs=-4326", "t_srs"},
		{"1,2", "t_srs=0", "t_srs"},
		{"1,2", "t_srs=99999999999", "t_srs"},
		{"1,2", "s_srs=1&s_srs=2", "given 2 times"},
		{"1,2", "ops=", "ops"},
		{"1,2", "ops=1676||1618", "ops"},
		{"1,2", "ops=ESRI:1", "ops"},
		{"1,2", "ops=" + strings.Repeat("1|", 9) + "1", "at most 8"},
	}
	for _, c := range bad {
		q, _ := url.ParseQuery(c.params)
		_, err := ParseTransform(c.coords, q)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%.40q %q: error %v, want ErrInvalid with %q", c.coords, c.params, err, c.msg)
		}
	}
}
