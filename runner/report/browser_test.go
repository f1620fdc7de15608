package report

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// requireBrowserEnv makes the browser test fail instead of skip when no
// Chromium is installed; .ci/run installs Debian's chromium and sets it.
const requireBrowserEnv = "TRIGGER_REQUIRE_BROWSER"

func findChromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(requireBrowserEnv) != "" {
		t.Fatalf("%s is set but no chromium is on PATH", requireBrowserEnv)
	}
	t.Skip("no chromium on PATH: install Debian's chromium package to run this test (.ci/run does)")
	return ""
}

// chromium runs headless Chromium on a local file with the flags this
// machine's closed network needs, and returns what it printed.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1300,2400", "--hide-scrollbars"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// report.html opens in a real browser, which parses the inline chart: every
// series is an SVG path with data in the DOM Chromium built, and the
// screenshot shows the series' colours drawn.
func TestReportInHeadlessChromium(t *testing.T) {
	bin := findChromium(t)
	doc, rows := loadFixture(t, "recovered")
	dir := t.TempDir()
	// The fixture predates the failed first attempts by class: a made-up split.
	if err := WriteAll(dir, doc, splitFirstFailures(rows)); err != nil {
		t.Fatal(err)
	}
	page := "file://" + filepath.Join(dir, HTMLFile)

	dom, err := html.Parse(bytes.NewReader(chromium(t, bin, "--dump-dom", page)))
	if err != nil {
		t.Fatal(err)
	}
	drawn := map[string]int{} // series → paths with data
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "path" {
			var class, d string
			for _, a := range n.Attr {
				switch a.Key {
				case "class":
					class = a.Val
				case "d":
					d = a.Val
				}
			}
			for _, c := range strings.Fields(class) {
				if strings.HasPrefix(c, seriesClassPrefix) && len(d) > 20 {
					drawn[strings.TrimPrefix(c, seriesClassPrefix)]++
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(dom)
	for _, s := range []string{SeriesSent, SeriesAttempts, SeriesOK, SeriesTimeouts, SeriesErrors, SeriesConnect, SeriesIngress, SeriesWait, SeriesTimeout} {
		if drawn[s] == 0 {
			t.Errorf("the browser's DOM has no drawn path for series %q (found %v)", s, drawn)
		}
	}

	shot := filepath.Join(dir, "screenshot.png")
	chromium(t, bin, "--screenshot="+shot, page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	for name, col := range map[string]color.RGBA{"sent": colSent, "timeouts": colTimeouts, "errors": colErrors, "ok": colOK, "wait": colWait} {
		if n := countColour(img, col); n < 50 {
			t.Errorf("the screenshot shows %d pixels of the %s series' colour; the chart was not drawn", n, name)
		}
	}
}

// countColour counts pixels within a small distance of c.
func countColour(img image.Image, c color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near8(r, c.R) && near8(g, c.G) && near8(bl, c.B) {
				n++
			}
		}
	}
	return n
}

func near8(v uint32, c uint8) bool {
	d := int(v>>8) - int(c)
	return d > -12 && d < 12
}
