package person

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// PersonName is a name split into parts, each folded by FoldName. Last may hold several words joined without
// spaces ("delacruz") so that "De la Cruz" and "Delacruz" compare equal.
type PersonName struct {
	First, Middle, Last string
}

// nameSuffixes and nameTitles are dropped: records and callers add or leave them out freely, so they carry no
// evidence either way.
var (
	nameSuffixes = map[string]bool{"jr": true, "sr": true, "ii": true, "iii": true, "iv": true, "esq": true,
		"md": true, "phd": true}
	nameTitles = map[string]bool{"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true, "mx": true}
	// lastNameParticles begin a compound last name: "Ludwig van Beethoven" has last name "vanbeethoven".
	lastNameParticles = map[string]bool{"de": true, "del": true, "della": true, "la": true, "le": true,
		"van": true, "von": true, "der": true, "den": true, "da": true, "di": true, "du": true, "st": true,
		"bin": true, "al": true, "el": true, "ten": true, "ter": true}
)

// specialFolds covers letters that Unicode does not decompose into a base letter and an accent.
var specialFolds = map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d",
	'þ': "th", 'ı': "i"}

// FoldName lower-cases s, removes accents ("José" is "jose") and turns every run of other characters into one
// space, except apostrophes and hyphens inside a word, which are dropped so that "O'Brien" is "obrien" and
// "Smith-Jones" is "smithjones" however the record spelled them.
func FoldName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining accent: the base letter before it has been kept.
		case r == '\'' || r == '’' || r == '-':
			// Joined, not split: see above.
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			r = unicode.ToLower(r)
			if f, ok := specialFolds[r]; ok {
				b.WriteString(f)
			} else {
				b.WriteRune(r)
			}
		default:
			space = true
		}
	}
	return b.String()
}

// ParseName splits a full name into first, middle and last. It reads "Last, First Middle" when there is a comma
// (as directories often list people), drops titles and suffixes, and joins a particle to the last name. A
// single word is taken as the last name, since matching requires one.
func ParseName(full string) PersonName {
	if i := strings.IndexByte(full, ','); i >= 0 {
		last, rest := full[:i], full[i+1:]
		// "Smith, Jr." is a suffix after a comma, not a reversed name.
		if w := strings.Fields(FoldName(rest)); len(w) > 0 && !allSuffixes(w) {
			full = rest + " " + last
		} else {
			full = last
		}
	}
	var words []string
	for _, w := range strings.Fields(FoldName(full)) {
		if !nameSuffixes[w] {
			words = append(words, w)
		}
	}
	for len(words) > 1 && nameTitles[words[0]] {
		words = words[1:]
	}
	switch len(words) {
	case 0:
		return PersonName{}
	case 1:
		return PersonName{Last: words[0]}
	}
	lastStart := len(words) - 1
	for lastStart > 1 && lastNameParticles[words[lastStart-1]] {
		lastStart--
	}
	return PersonName{
		First:  words[0],
		Middle: strings.Join(words[1:lastStart], " "),
		Last:   strings.Join(words[lastStart:], ""),
	}
}

func allSuffixes(words []string) bool {
	for _, w := range words {
		if !nameSuffixes[w] {
			return false
		}
	}
	return true
}

// nameFromParts folds the name parts a record holds separately.
func nameFromParts(first, middle, last string) PersonName {
	p := PersonName{First: FoldName(first), Middle: FoldName(middle), Last: strings.ReplaceAll(FoldName(last), " ", "")}
	// A first-name field that holds "Robert J" still gives a one-word first name.
	if f := strings.Fields(p.First); len(f) > 1 {
		p.First, p.Middle = f[0], strings.TrimSpace(strings.Join(f[1:], " ")+" "+p.Middle)
	}
	return p
}

// Scores of first-name comparisons.
const (
	FirstExact    = 1.0
	FirstNickname = 0.9
	FirstInitial  = 0.6
)

// CompareFirst scores two folded first names: FirstExact when equal, FirstNickname when they are forms of one
// name (Bob and Robert), FirstInitial when one is the other's initial, and 0 otherwise.
func CompareFirst(a, b string) float64 {
	switch {
	case a == "" || b == "":
		return 0
	case a == b:
		return FirstExact
	case SameGivenName(a, b):
		return FirstNickname
	case isInitialOf(a, b) || isInitialOf(b, a):
		return FirstInitial
	}
	return 0
}

// isInitialOf reports whether a is a single letter that begins b.
func isInitialOf(a, b string) bool {
	return len(a) == 1 && strings.HasPrefix(b, a)
}

// middleContradicts reports whether two middle names show two different people: both given and neither equal,
// a nickname of, nor the initial of the other ("J" agrees with "James", "K" does not).
func middleContradicts(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	// Only the first middle name is compared: records keep one middle name more often than several.
	a, b = strings.Fields(a)[0], strings.Fields(b)[0]
	if len(a) == 1 || len(b) == 1 {
		return a[0] != b[0]
	}
	return a != b && !SameGivenName(a, b)
}

// SameGivenName reports whether two folded given names are forms of one name (see nicknameGroups). A name can be
// in several groups: Ted is short for both Theodore and Edward, but Theodore and Edward are not the same name.
func SameGivenName(a, b string) bool {
	for _, ga := range nicknameIndex[a] {
		for _, gb := range nicknameIndex[b] {
			if ga == gb {
				return true
			}
		}
	}
	return false
}

// nicknameIndex maps a folded given name to the groups it belongs to.
var nicknameIndex = func() map[string][]int {
	idx := map[string][]int{}
	for i, g := range nicknameGroups {
		for _, n := range strings.Fields(g) {
			idx[n] = append(idx[n], i)
		}
	}
	return idx
}()

// nicknameGroups lists common English given names with their usual short forms, one group per formal name (or
// per pair of formal names that share their short forms, as Katherine and Catherine do). Every name in a group
// counts as the same given name as every other.
var nicknameGroups = []string{
	"robert rob bob bobby robbie bert",
	"william bill will billy willy liam",
	"elizabeth liz beth betty lizzie eliza libby betsy",
	"james jim jimmy jamie",
	"michael mike mikey mick",
	"katherine catherine kathryn kate kathy katie cathy kat",
	"thomas tom tommy",
	"richard dick rick ricky rich richie",
	"margaret peggy maggie meg marge margie greta",
	"anthony tony",
	"jennifer jen jenny jenn",
	"christopher chris kit topher",
	"christine christina chris chrissy tina",
	"alexander alex al xander sandy",
	"alexandra alex alexa sandra sandy lexi",
	"samuel sam sammy",
	"samantha sam sammy",
	"daniel dan danny",
	"david dave davey",
	"joseph joe joey jos",
	"edward ed eddie ted teddy ned",
	"theodore ted teddy theo",
	"steven stephen steve stevie",
	"andrew andy drew",
	"matthew matt matty",
	"nicholas nick nicky",
	"patrick pat paddy",
	"patricia pat patty trish tricia",
	"susan sue susie suzy",
	"jonathan jon john johnny jack",
	"john jon johnny jack",
	"gregory greg",
	"benjamin ben benny benji",
	"timothy tim timmy",
	"charles charlie chuck chas",
	"charlotte charlie lottie",
	"henry hank harry hal",
	"harold harry hal",
	"lawrence laurence larry",
	"leonard leo len lenny",
	"ronald ron ronnie",
	"donald don donnie",
	"douglas doug",
	"raymond ray",
	"gerald gerry jerry",
	"jeffrey geoffrey jeff",
	"kenneth ken kenny",
	"kimberly kim",
	"deborah debra deb debbie",
	"rebecca becky becca",
	"jessica jess jessie",
	"victoria vicky tori",
	"abigail abby gail",
	"barbara barb barbie babs",
	"dorothy dot dottie",
	"frances fran frannie",
	"francis frank frankie",
	"franklin frank",
	"frederick fred freddie",
	"albert al bert",
	"allen allan alan al",
	"walter walt wally",
	"philip phillip phil",
	"peter pete",
	"eugene gene",
	"nathaniel nathan nate nat",
	"zachary zach zack",
	"jacob jake",
	"joshua josh",
	"vincent vince vinny",
	"terence terrence terry",
	"teresa theresa terry tess tessa",
	"ann anne anna annie nancy",
	"mary molly polly mae",
	"judith judy",
	"cynthia cindy",
	"pamela pam",
	"sarah sara sally",
	"stephanie steph",
	"virginia ginny ginger",
	"valerie val",
	"josephine jo josie",
	"louis lou",
	"louise lou",
	"ernest ernie",
	"mitchell mitch",
	"randall randy",
	"russell russ",
	"stanley stan",
	"wesley wes",
	"sylvester sly",
	"beatrice bea",
	"cassandra cassie",
	"eleanor ellie nell",
	"gabriel gabe",
	"isabella isabel bella izzy",
	"madeline madeleine maddie",
	"veronica ronnie",
}
