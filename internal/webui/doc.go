package webui

import (
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// A Doc is a page of plain text: paragraphs apart by a blank line, a line
// "# …" a heading, lines "- …" a list. Nothing in it is markup: every
// character is shown as written (escaped by the page), so a studio's own
// text can never add a script or a link.
type Doc struct{ Blocks []Block }

// Block is a heading, a paragraph or a list of a Doc.
type Block struct {
	Heading string
	Text    string
	Items   []string
}

// MaxDocBytes bounds a Doc's text (a studio's privacy or terms file).
const MaxDocBytes = 256 << 10

// ParseDoc reads text as a Doc. It refuses text that is not UTF-8, holds
// a NUL or other control character (tab and line ends are fine), or is
// longer than MaxDocBytes.
func ParseDoc(text string) (Doc, error) {
	if len(text) > MaxDocBytes {
		return Doc{}, fmt.Errorf("it is %d bytes; at most %d are read", len(text), MaxDocBytes)
	}
	if !utf8.ValidString(text) {
		return Doc{}, errors.New("it is not UTF-8 text")
	}
	for i, r := range text {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f {
			return Doc{}, fmt.Errorf("it holds a control character (%U) at byte %d", r, i)
		}
	}
	var d Doc
	var para []string
	flush := func() {
		if len(para) > 0 {
			d.Blocks = append(d.Blocks, Block{Text: strings.Join(para, " ")})
			para = nil
		}
	}
	for line := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "# "):
			flush()
			d.Blocks = append(d.Blocks, Block{Heading: strings.TrimSpace(line[2:])})
		case strings.HasPrefix(line, "- "):
			flush()
			item := strings.TrimSpace(line[2:])
			if n := len(d.Blocks); n > 0 && d.Blocks[n-1].Items != nil {
				d.Blocks[n-1].Items = append(d.Blocks[n-1].Items, item)
			} else {
				d.Blocks = append(d.Blocks, Block{Items: []string{item}})
			}
		default:
			para = append(para, line)
		}
	}
	flush()
	if len(d.Blocks) == 0 {
		return Doc{}, errors.New("it is empty")
	}
	return d, nil
}

//go:embed legal/*.txt
var legalFS embed.FS

// DefaultDoc is Perform's own text of name ("privacy" or "terms") in l.
func DefaultDoc(name string, l Lang) Doc {
	b, err := legalFS.ReadFile("legal/" + name + "." + string(l) + ".txt")
	if err != nil {
		panic("webui: no " + name + " text in " + string(l))
	}
	d, err := ParseDoc(string(b))
	if err != nil {
		panic("webui: the " + name + " text in " + string(l) + ": " + err.Error())
	}
	return d
}

// DocView is what DocPage shows: the text, and whether it is the
// studio's own (shown in its own direction, dir="auto").
type DocView struct {
	Doc    Doc
	Studio bool
}

// DocPage draws a Doc.
var DocPage = NewPage(`{{define "content"}}{{$dir := ""}}{{if .Studio}}{{$dir = "auto"}}{{end}}
{{range .Doc.Blocks}}{{if .Heading}}<h2{{if $dir}} dir="auto"{{end}}>{{.Heading}}</h2>
{{else if .Items}}<ul{{if $dir}} dir="auto"{{end}}>{{range .Items}}<li>{{.}}</li>{{end}}</ul>
{{else}}<p{{if $dir}} dir="auto"{{end}}>{{.Text}}</p>
{{end}}{{end}}{{if .Studio}}<p class="muted">{{t "legal.studio"}}</p>{{end}}
{{end}}`)

// Time is t in zone, written for a reader of l: "4 Dec 2026, 09:05" or
// "4 בדצמבר 2026, 09:05".
func Time(l Lang, t time.Time, zone *time.Location) string {
	if zone == nil {
		zone = time.UTC
	}
	t = t.In(zone)
	return Text(l, "time.format", t.Day(), Text(l, fmt.Sprintf("month.%d", int(t.Month()))), t.Year(), t.Format("15:04"))
}
