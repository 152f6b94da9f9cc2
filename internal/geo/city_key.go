package geo

// cityAbbreviations maps the abbreviations USPS and people use in city names to the word the data
// spells out. Both the stored names and the queries go through cityKey, so it does not matter which
// side uses which form.
var cityAbbreviations = map[string]string{
	"ST":   "SAINT",
	"STE":  "SAINTE",
	"FT":   "FORT",
	"MT":   "MOUNT",
	"PT":   "POINT",
	"SPGS": "SPRINGS",
	"SPG":  "SPRING",
	"HTS":  "HEIGHTS",
	"JCT":  "JUNCTION",
	"CTR":  "CENTER",
	"VLG":  "VILLAGE",
	"BCH":  "BEACH",
}

// leadingDirections are expanded only as the first word of a longer name ("N Little Rock"), because
// a lone letter elsewhere is usually an initial ("U S A F Academy").
var leadingDirections = map[string]string{
	"N": "NORTH", "S": "SOUTH", "E": "EAST", "W": "WEST",
	"NE": "NORTHEAST", "NW": "NORTHWEST", "SE": "SOUTHEAST", "SW": "SOUTHWEST",
}

// cityKey reduces a city name to a comparison key: upper-case ASCII letters and digits, accents folded
// (Mayagüez -> MAYAGUEZ), abbreviations expanded, and no separators at all, so that spacing variants
// such as "McLean"/"Mc Lean" and "DeKalb"/"De Kalb" meet. Dropping the spaces could in principle merge
// two different cities, but it would take two names differing only in spacing within one state.
func cityKey(city string) string {
	// First the words, upper case, separated by single spaces.
	words := make([]byte, 0, len(city))
	for _, r := range city {
		r = foldLatin(r)
		switch {
		case r >= 'a' && r <= 'z':
			words = append(words, byte(r-'a'+'A'))
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			words = append(words, byte(r))
		case r == '\'' || r == '’':
			// "O'Fallon" is "O Fallon" in USPS data and "OFallon" after joining either way; an
			// apostrophe never separates words that could be abbreviations.
		default:
			if len(words) > 0 && words[len(words)-1] != ' ' {
				words = append(words, ' ')
			}
		}
	}
	if len(words) > 0 && words[len(words)-1] == ' ' {
		words = words[:len(words)-1]
	}

	// Then each word, expanded where it is an abbreviation, joined without separators.
	key := make([]byte, 0, len(words)+8)
	for i := 0; i < len(words); {
		end := i
		for end < len(words) && words[end] != ' ' {
			end++
		}
		w := words[i:end]
		if full, ok := cityAbbreviations[string(w)]; ok {
			key = append(key, full...)
		} else if full, ok := leadingDirections[string(w)]; ok && i == 0 && end < len(words) {
			key = append(key, full...)
		} else {
			key = append(key, w...)
		}
		i = end + 1
	}
	return string(key)
}

// foldLatin maps the accented Latin-1 letters found in US and Puerto Rican place names to their base
// letter; USPS data is plain ASCII, but people type "Cañon City" and "Mayagüez".
func foldLatin(r rune) rune {
	if r < 0xC0 || r > 0xFF {
		return r
	}
	const folded = "AAAAAAACEEEEIIIIDNOOOOO*OUUUUYTsaaaaaaaceeeeiiiidnooooo/ouuuuyty"
	if c := folded[r-0xC0]; c != '*' && c != '/' {
		return rune(c)
	}
	return r
}
