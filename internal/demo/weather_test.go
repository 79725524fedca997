package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/weather"
)

func TestInstallWeather(t *testing.T) {
	fixtures.NPM(t, WeatherSpec) // skips without npm
	b := servicesBuilder(t)
	if err := b.installWeather(t.Context()); err != nil {
		t.Fatal(err)
	}
	c, err := weather.Latest(filepath.Join(b.opts.DataDir, weather.Dir), func(id string) bool {
		_, err := os.Stat(filepath.Join(b.opts.DataDir, "tiles", id+".mbtiles"))
		return err == nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range c.Variables {
		ids = append(ids, v.Metadata.WeatherVariable.VariableID+"@"+v.Keyframes[0].Timestamp)
	}
	if got := strings.Join(ids, ","); got != "ugrd-10m@2023-06-01T12:00:00Z,vgrd-10m@2023-06-01T12:00:00Z" {
		t.Errorf("weather catalog: %s", got)
	}
}
