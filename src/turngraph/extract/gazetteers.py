"""Small word lists the rule extractor types entities and spots patterns with.

They are deliberately short: common English first names, major places, well-known
organizations and products, job words. Context patterns ("works at X", "my sister X") type
what the lists miss.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(w.strip().lower() for w in text.split(",") if w.strip())


FIRST_NAMES = _words("""
aaron, abby, abigail, adam, adrian, aiden, alan, albert, alex, alexander, alexis, alice, alicia,
alison, amanda, amber, amelia, amy, ana, andrea, andrew, andy, angela, anna, anne, anthony,
antonio, ari, arthur, ashley, audrey, austin, ava, barbara, ben, benjamin, beth, betty, bill,
billy, bob, bobby, brad, bradley, brandon, brenda, brian, brittany, bruce, bryan, caleb,
cameron, carl, carla, carlos, carol, caroline, carolyn, carrie, catherine, charles, charlie,
charlotte, chloe, chris, christian, christina, christine, christopher, claire, clara, cody,
colin, connor, craig, cynthia, daisy, dan, daniel, danielle, danny, dave, david, deb, deborah,
debra, dennis, derek, diana, diane, donald, donna, dorothy, doug, douglas, dylan, ed, eddie,
edward, elena, eli, elijah, elizabeth, ella, ellen, emily, emma, eric, erica, erin, ethan,
eva, evan, evelyn, frank, fred, gabriel, gary, gemma, george, gina, grace, greg, gregory,
hannah, harold, harry, heather, helen, henry, holly, ian, isaac, isabella, jack, jackie,
jacob, jake, james, jamie, jane, janet, jason, jeff, jeffrey, jen, jenna, jennifer, jenny,
jeremy, jerry, jess, jesse, jessica, jill, jim, jimmy, joan, joanna, joe, joel, john, johnny,
jon, jonathan, jordan, jose, joseph, josh, joshua, joy, joyce, juan, judy, julia, julie,
justin, karen, kate, katherine, kathy, katie, kayla, keith, kelly, ken, kenneth, kevin, kim,
kimberly, kyle, laura, lauren, leah, lee, leo, liam, lily, linda, lisa, liz, logan, lois,
louis, lucas, lucy, luis, luke, lydia, madison, maggie, marcus, margaret, maria, marie, mark,
martha, martin, mary, mason, matt, matthew, max, maya, megan, mel, melanie, melissa, mia,
michael, michelle, mike, mila, miles, molly, nancy, natalie, nate, nathan, nicholas, nick,
nicole, noah, nora, oliver, olivia, oscar, owen, pam, pamela, patricia, patrick, paul,
peter, phil, philip, rachel, ralph, raymond, rebecca, richard, rick, rob, robert, robin,
roger, ron, ronald, rose, ruby, russell, ruth, ryan, sally, sam, samantha, samuel, sandra,
sara, sarah, scott, sean, sharon, shirley, sofia, sophia, sophie, stephanie, stephen, steve,
steven, sue, susan, tanya, taylor, ted, teresa, terry, thomas, tim, timothy, tina, todd, tom,
tommy, tony, tracy, tyler, valerie, victor, victoria, vincent, walter, wayne, wendy, william,
willow, zach, zachary, zoe
""")

PLACES = _words("""
africa, amsterdam, argentina, asia, athens, atlanta, austin, australia, austria, bangkok,
barcelona, beijing, belgium, berlin, boston, brazil, brooklyn, brussels, budapest, buenos aires,
cairo, california, canada, cape town, chicago, chile, china, colorado, copenhagen, cuba, dallas,
denmark, denver, dubai, dublin, edinburgh, egypt, england, europe, finland, florence, florida,
france, georgia, germany, greece, hawaii, helsinki, hong kong, houston, hungary, iceland, india,
indonesia, ireland, israel, istanbul, italy, jamaica, japan, kenya, korea, kyoto, lagos,
las vegas, lisbon, london, los angeles, madrid, manchester, melbourne, mexico, mexico city,
miami, milan, montreal, morocco, moscow, mumbai, munich, nairobi, netherlands, new jersey,
new orleans, new york, new york city, new zealand, nigeria, norway, oregon, oslo, paris, peru,
philadelphia, poland, portland, portugal, prague, rome, russia, san diego, san francisco,
scotland, seattle, seoul, shanghai, singapore, south africa, spain, stockholm, sweden,
switzerland, sydney, taiwan, texas, thailand, tokyo, toronto, turkey, uk, ukraine,
united kingdom, united states, us, usa, vancouver, venice, vienna, vietnam, wales, warsaw,
washington, zurich
""") | _words("""
alabama, alaska, arizona, arkansas, connecticut, delaware, idaho, illinois, indiana, iowa,
kansas, kentucky, louisiana, maine, maryland, massachusetts, michigan, minnesota, mississippi,
missouri, montana, nebraska, nevada, new hampshire, new mexico, north carolina, north dakota,
ohio, oklahoma, pennsylvania, rhode island, south carolina, south dakota, tennessee, utah,
vermont, virginia, west virginia, wisconsin, wyoming
""")

ORGANIZATIONS = _words("""
acme, adidas, airbnb, amazon, apple, at&t, bbc, boeing, cisco, cnn, coca-cola, deloitte,
disney, dropbox, ebay, facebook, fedex, ford, globex, goldman sachs, google, harvard, hp, ibm,
ikea, initech, intel, linkedin, mcdonald's, meta, microsoft, mit, nasa, netflix, nike, nvidia,
openai, oracle, paypal, pepsi, pfizer, salesforce, samsung, shopify, sony, spacex, spotify,
stanford, starbucks, target, tesla, toyota, twitter, uber, unicef, walmart, yale, youtube
""")

PRODUCTS = _words("""
android, chatgpt, excel, ipad, iphone, kindle, macbook, minecraft, netflix, nintendo switch,
photoshop, playstation, prius, slack, windows, xbox, zoom
""")

ORG_WORDS = _words("""
academy, agency, association, bank, church, club, co, college, company, corp, corporation,
council, department, foundation, group, hospital, inc, institute, labs, llc, ltd, shelter,
society, studio, studios, team, university
""")

PLACE_WORDS = _words("""
avenue, beach, bay, city, county, island, lake, mountain, mountains, museum, park, river,
road, square, street, valley
""")

EVENT_WORDS = _words("""
conference, concert, festival, parade, summit, wedding, party, marathon, race, fair, expo,
ceremony, workshop
""")

JOB_WORDS = _words("""
dev, coder,
accountant, analyst, architect, artist, assistant, ceo, cfo, chef, chief, cmo, coach, consultant,
coo, counselor, cto, dancer, dentist, designer, developer, director, doctor, editor, engineer,
founder, head, intern, journalist, lawyer, lead, lecturer, manager, mechanic, musician, nurse,
officer, owner, painter, pharmacist, photographer, pilot, president, principal, producer,
professor, programmer, psychologist, researcher, scientist, singer, student, teacher,
technician, therapist, vp, writer, practitioner, paramedic, firefighter, cashier, barista,
waiter, waitress, bartender, electrician, plumber, carpenter, veterinarian, vet, surgeon,
attorney, paralegal, receptionist, secretary, clerk, librarian, janitor, driver, farmer,
soldier, detective, instructor, tutor, coordinator, specialist, administrator, supervisor,
executive, entrepreneur, freelancer, contractor, realtor, agent, banker, trader, economist,
statistician, nanny, caregiver, midwife, worker, postdoc, influencer, streamer, youtuber,
actor, actress, comedian, dj, athlete, attendant, welder, baker, butcher, florist,
tailor, hairdresser, barista, stylist, cook, housekeeper, gardener, landscaper, planner,
strategist, marketer, recruiter, illustrator, animator, translator, interpreter, resident,
sous-chef, physician, physiotherapist, optometrist, radiologist, nurse-practitioner, cto,
ceo, coo, vp, svp, evp, officer, guard, chemist, biologist, physicist,
mathematician, historian, curator, sociologist, linguist, pastor, priest, rabbi, imam,
ta, dean, chancellor, mayor, senator, politician, diplomat, ambassador, captain,
sergeant, lieutenant, colonel, ranger, sailor, fisherman, miner, builder,
technologist, hygienist, dietitian, nutritionist, pediatrician, psychiatrist, anesthesiologist,
cardiologist, dermatologist, neurologist, oncologist, obstetrician, paediatrician, doula,
engineer, lead, principal, intern, apprentice, trainee
""")

# What a pet word names as a species ("puppies" are dogs).
SPECIES_OF = {
    "kitten": "cat",
    "kitty": "cat",
    "kittie": "cat",
    "puppy": "dog",
    "puppie": "dog",
    "pup": "dog",
    "doggo": "dog",
}

PETS = _words("""
bird, bunny, cat, dog, ferret, fish, gecko, guinea pig, hamster, horse, kitten, lizard, parrot,
pony, puppy, rabbit, snake, turtle, bearded dragon, tortoise, cockatiel, budgie, chinchilla,
hedgehog, axolotl, goldfish, iguana, pup, doggo, kitty, rat, mouse, canary, parakeet
""")

# Capitalized words that start sentences or address people without naming an entity.
NOT_NAMES = _words("""
a, about, absolutely, actually, after, again, ah, all, also, always, an, and, any, anyway,
anything, are, as, at, aw, aww, awesome, because, been, before, being, best, both, btw, but,
by, can, check, congrats, congratulations, cool, could, dear, definitely, did, do, does,
don't, during, each, even, every, everyone, everything, for, from, glad, go, good, got, great,
guess, ha, haha, had, has, have, he, hello, her, here, hey, hi, his, hmm, how, however, i,
i'd, i'll, i'm, i've, if, in, is, it, it's, its, just, last, let, let's, like, lol, look,
love, made, many, maybe, me, mine, more, most, much, my, never, next, nice, no, nope, not,
now, of, oh, ok, okay, omg, on, once, one, only, or, our, perhaps, please, probably, really,
right, same, see, she, should, since, so, some, something, sometimes, sorry, sounds, still,
sure, take, thank, thanks, that, that's, the, their, them, then, there, these, they, this,
those, though, thx, to, today, tomorrow, too, totally, um, until, very, was, we, we're, well,
were, what, what's, when, where, which, while, who, why, will, with, wow, would, yay, yeah,
yes, yesterday, yet, you, you're, your, yup
""")

WEEKDAY_MONTH = _words("""
monday, tuesday, wednesday, thursday, friday, saturday, sunday, january, february, march,
april, may, june, july, august, september, october, november, december
""")

# Past-tense verbs that do not end in -ed.
IRREGULAR_PAST = _words("""
ate, became, began, bought, brought, built, came, caught, chose, did, drank, drew, drove, felt,
fell, flew, forgot, found, gave, got, grew, had, heard, held, hit, kept, knew, led, left, lent,
lost, made, met, ran, read, rode, sang, sat, saw, sent, set, shot, showed, sold, spent, spoke,
stood, swam, taught, thought, threw, told, took, understood, went, woke, won, wore, wrote
""")
# Words ending in -ed that are not past-tense actions worth recording.
NOT_ACTIONS = _words("""
bed, feed, indeed, interested, need, red, seed, shed, speed, tired, excited, bored, scared,
worried, amazed, surprised, stressed, used, supposed, married, engaged, divorced, based, named,
called, inspired, pleased, relieved, thrilled, overwhelmed, exhausted, obsessed, blessed,
motivated, determined, concerned, related, involved, focused, dedicated, pumped, stoked
""")

# Verbs that make "always ..." / "never ..." an instruction to the agent rather than advice.
AGENT_VERBS = _words("""
add, address, answer, ask, call, cite, respond, explain, format, greet, include, keep, list,
mention, recommend, refer, remind, reply, say, send, share, show, sign, speak, suggest,
summarize, talk, tell, translate, use, write
""")

# Languages and nationalities: attribute values, not entities.
LANGUAGES = _words("""
arabic, chinese, dutch, english, french, german, greek, hebrew, hindi, italian, japanese,
korean, mandarin, polish, portuguese, russian, spanish, swedish, turkish, ukrainian,
vietnamese, american, british, canadian, mexican, indian, irish, australian
""")

# Verbs that open an instruction by themselves ("Reply in French", "Use metric units").
DIRECT_AGENT_VERBS = _words("""
answer, cite, format, include, reply, respond, speak, summarize, translate, use, write
""")
