"""Closed word classes and small topic lists the clause reader and the fact rules use."""

from __future__ import annotations


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


BE = _set("am 'm is 's are 're was were be been being")
HAVE = _set("have 've has had having")
DO = _set("do does did")
MODALS = _set("will 'll would 'd can could should might may must shall")
NEGATIONS = _set("not n't never")
DETERMINERS = _set(
    "a an the my our his her their your its this that these those some any every each another "
    "own no lots plenty bunch couple"
)
POSSESSIVES = _set("my our his her their your")
PRONOUN_OBJECTS = _set(
    "it that this them those these one something anything everything nothing stuff things "
    "there here him her me you us myself yourself ourselves what which"
)
SUBJECT_PRONOUNS = _set("I we he she they you it that this there who what everything everyone")
PREPOSITIONS = _set(
    "to at in on with for from about into onto over under near by of around through during "
    "after before since until across towards toward without within like than per via"
)
# Words that end a noun phrase.
BOUNDARY = _set(
    "and but so because since when while which who whom whose that though although if unless "
    "after before once "
    "as than or nor yet then where whereas whether until till"
)
TIME_WORDS = _set(
    "monday tuesday wednesday thursday friday saturday sunday "
    "yesterday today tonight tomorrow last next ago this recently lately soon now again too "
    "either already anymore earlier later once twice weekly daily monthly yearly before after "
    "every each morning evening afternoon weekend week month year years months weeks days day"
)
# Adverbs and fillers between a subject and its verb, or before a clause.
ADVERBS = _set(
    "just really finally also recently actually still already even totally definitely "
    "currently now lately literally seriously honestly officially basically only ever once "
    "again newly originally truly absolutely kinda sorta pretty so very soon then "
    "eventually initially first mostly mainly simply certainly surely obviously clearly "
    "happily sadly luckily unfortunately fortunately apparently supposedly secretly "
    "constantly regularly occasionally frequently rarely hardly barely almost nearly "
    "quickly slowly suddenly immediately gradually originally previously formerly "
    "officially proudly all both someday eventually definitely technically especially "
    "mostly particularly"
)
# Adjectives that describe a noun and never stand for one: an object or phrase that ends on one
# was cut short ("build a strong, supportive community" read up to "strong").
ADJECTIVES = _set(
    "safe strong supportive positive healthy happy warm cozy welcoming inviting special whole "
    "different same perfect local quick long short old young big small little huge nice "
    "beautiful amazing awesome cool great good new real true wonderful lovely gorgeous"
)
FREQUENCY = _set("always usually often sometimes normally generally typically regularly everyday")
HEDGES = _set("maybe perhaps probably possibly might may apparently supposedly hopefully")
HEDGE_PHRASES = (
    "i think",
    "i guess",
    "i suppose",
    "i believe",
    "i heard",
    "i'm not sure",
    "not sure",
    "i wonder",
    "seems like",
    "i doubt",
    "it looks like",
    "rumor has it",
)
DISCOURSE = _set(
    "yeah yes yep yup no nope oh wow well so and but also plus then anyway honestly hey hi "
    "hello haha hahaha lol omg ok okay um uh hmm ah aw aww sure right true totally gosh "
    "man dude guys guess wait alright cool great nice awesome thanks thank oops sorry nah "
    "welp ugh sooo soo meh yay whoa hmmm ahh"
)
# Verbs that make no event by themselves: states, feelings, talk about talk.
LIGHT_VERBS = _set(
    "be have feel think know seem look sound mean guess hope wish want need agree believe "
    "wonder understand appreciate thank care matter say tell talk ask hear see let get "
    "love like hate enjoy prefer remember forget miss bet suppose reckon imagine realize "
    "realise notice cherish admire value deserve owe am doubt worry bother glad happen "
    "keep seem appear stay remain mind count help give make do take go come put chat"
)
# Of the light verbs, those that still make an action when they have a real object.
OBJECT_VERBS = _set(
    "have get give make do take go come put help keep tell ask see hear miss remember chat talk "
    "appreciate value cherish admire need support respect treasure"
)
# -ing words that are not verbs in progress after "is": "it's amazing", "a wedding".
ING_WORDS = _set(
    "amazing interesting exciting boring thing something nothing everything anything morning "
    "evening wedding building ceiling king ring spring sibling darling pudding clothing "
    "awesome stunning inspiring relaxing refreshing rewarding challenging fascinating "
    "overwhelming frustrating encouraging amusing charming surprising disappointing "
    "heartwarming heartbreaking humbling exhausting thrilling terrifying touching uplifting "
    "calming soothing satisfying fulfilling welcoming loving caring outstanding understanding "
    "willing missing lacking"
)
ASPECT_VERBS = _set("start begin stop quit keep continue finish resume")
INTENT_VERBS = _set("want plan hope intend aim wish dream decide try aspire")
FUTURE_MARKERS = _set("will 'll")
PARTICLES = _set("up out off down back over away around")

KIN = {
    "sister": "sibling",
    "sis": "sibling",
    "brother": "sibling",
    "bro": "sibling",
    "sibling": "sibling",
    "siblings": "sibling",
    "sisters": "sibling",
    "brothers": "sibling",
    "mom": "parent",
    "mum": "parent",
    "mother": "parent",
    "dad": "parent",
    "father": "parent",
    "parents": "parent",
    "son": "child",
    "daughter": "child",
    "kid": "child",
    "kids": "child",
    "child": "child",
    "children": "child",
    "sons": "child",
    "daughters": "child",
    "baby": "child",
    "wife": "spouse",
    "husband": "spouse",
    "spouse": "spouse",
    "partner": "partner",
    "boyfriend": "partner",
    "girlfriend": "partner",
    "fiance": "partner",
    "fiancee": "partner",
    "friend": "friend",
    "bestie": "friend",
    "buddy": "friend",
    "roommate": "friend",
    "boss": "boss",
    "manager": "boss",
    "lead": "boss",
    "supervisor": "boss",
    "neighbour": "friend",
    "neighbor": "friend",
    "colleague": "colleague",
    "coworker": "colleague",
    "co-worker": "colleague",
    "cousin": "relative",
    "aunt": "relative",
    "uncle": "relative",
    "grandma": "relative",
    "grandpa": "relative",
    "grandmother": "relative",
    "grandfather": "relative",
    "niece": "relative",
    "nephew": "relative",
    "grandparents": "relative",
    "mentor": "friend",
}
# Unnamed family members worth recording as the speaker's family.
FAMILY_WORDS = _set(
    "sister brother sisters brothers siblings mom mum mother dad father parents son daughter "
    "sons daughters kids kid children child baby wife husband fiance fiancee grandparents "
    "grandma grandpa twins"
)
RELATIONSHIP_STATUS = {
    "married": "married",
    "single": "single",
    "engaged": "engaged",
    "divorced": "divorced",
    "widowed": "widowed",
    "separated": "separated",
    "dating": "dating",
}
DIETS = _set(
    "vegetarian vegan pescatarian keto paleo gluten-free dairy-free kosher halal "
    "lactose-intolerant flexitarian"
)
HEALTH_CONDITIONS = _set(
    "asthma diabetes migraines migraine anxiety depression adhd arthritis covid flu cold "
    "insomnia eczema cancer allergies hypertension celiac pneumonia bronchitis concussion "
    "injury tendinitis fever headache headaches cough parkinson alzheimer's alzheimer "
    "dementia autism dyslexia epilepsy ptsd ocd scoliosis sciatica psoriasis lupus anemia "
    "endometriosis pcos tinnitus vertigo"
)
TECH = _set(
    "python sql rust java javascript typescript excel go golang c++ c# ruby php swift kotlin "
    "scala haskell r matlab react django docker kubernetes aws linux figma photoshop tableau "
    "html css"
)
TECH_NAMES = {
    "sql": "SQL",
    "aws": "AWS",
    "html": "HTML",
    "css": "CSS",
    "c++": "C++",
    "c#": "C#",
    "php": "PHP",
    "r": "R",
}
BODY_PARTS = _set(
    "ankle arm leg wrist knee back shoulder foot hand finger toe hip neck rib nose elbow acl "
    "mcl meniscus achilles hamstring tendon ligament collarbone"
)
INJURY_VERBS = _set("break sprain injure hurt twist fracture tear pull dislocate")
NATIONALITIES = _set(
    "american british canadian mexican indian irish australian french german italian spanish "
    "portuguese dutch swedish norwegian danish finnish polish russian ukrainian chinese "
    "japanese korean vietnamese thai filipino brazilian argentinian colombian chilean "
    "peruvian nigerian kenyan ghanaian egyptian moroccan turkish greek israeli iranian "
    "pakistani bangladeshi scottish welsh english belgian swiss austrian czech hungarian "
    "romanian serbian croatian lebanese ethiopian"
)
INSTRUMENTS = _set(
    "piano guitar violin cello drums flute saxophone trumpet ukulele bass clarinet harp "
    "banjo keyboard"
)
DEGREES = _set(
    "degree bachelor's master's masters bachelors bachelor master phd mba diploma doctorate "
    "ba bs ma bsc msc"
)
SCHOOL_WORDS = _set("university college school academy institute uni")
# Things an assistant's output is made of: an imperative about them is an instruction.
OUTPUT_NOUNS = _set(
    "answer answers reply replies response responses message messages code emoji emojis "
    "summary summaries sentences words bullet bullets points language tone english french "
    "spanish german python javascript metric units format formatting markdown examples "
    "jargon explanations explanation emails email recs recommendations suggestions "
    "sources citations links tables lists headers caps paragraphs paragraph prose version "
    "analogies analogy basics detail details depth grams cups ounces celsius fahrenheit "
    "kilometres kilometers miles table list numbered headings"
)
INSTRUCTION_VERBS = _set(
    "add address answer ask call cite respond explain format greet include keep list "
    "mention recommend refer remind reply say send share show sign speak suggest summarize "
    "talk tell translate use write give avoid stop be make check double-check spell put "
    "switch skip drop"
)
DIRECT_INSTRUCTION_VERBS = _set(
    "answer cite format reply respond summarize translate use write speak explain address"
)

# Common verbs of conversation, as lemmas: a word whose lemma is here can start a clause.
VERBS = _set(
    "tweak network achieve snap belong contact team tackle stumble accomplish upgrade "
    "reorganize express develop boost picture judge link update provide trust involve gain "
    "rely respond whip decompress recharge tinker reduce pitch relive skype adapt overcome "
    "strive disconnect collaborate taste rehearse blog stream vlog brainstorm "
    "accept add adopt agree allow apply arrive ask attend bake be become begin believe "
    "book borrow bought break bring build buy call camp care carry catch celebrate change chat "
    "check choose clean climb coach collect come complete cook count create cry cut dance "
    "date deal decide deliver design die dig discover do donate draw dream drink drive drop "
    "earn eat email end enjoy enter escape explore face fail fall feel fight figure fill find "
    "finish fish fix fly follow forget form get give go graduate grow hang happen hate have "
    "head hear help hike hire hit hold hope host hug hunt hurt imagine improve include "
    "install interview introduce invite join jog jump keep kick kill know land launch learn "
    "leave lend let lift like listen live look lose love make manage marry mean meet miss "
    "move need open order organize own paint park pass pay perform pick plan plant play "
    "post practice prepare present promote publish pull push put quit rain reach read "
    "realize receive record recover relax relocate remember renovate rent repair research "
    "rest retire return ride run save say schedule score see sell send serve set settle "
    "share shop show sign sing sit skate ski sleep snowboard speak spend start stay stop "
    "study submit support surf swim take talk teach tell test text think throw tour train "
    "travel treat try turn understand upload use visit volunteer vote wait wake walk want "
    "watch wear win wish work worry write "
    "adopt bike bond browse crochet knit sew garden golf hunt kayak paddle row sail "
    "scuba snorkel bowl box bake grill roast brew craft sculpt carve film photograph "
    "compose record mix produce edit code program hack build launch ship deploy release "
    "apply interview hire fire lead mentor tutor babysit nanny foster rescue "
    "continue consider pursue prioritize encourage inspire motivate remind reflect connect "
    "raise organise spread attend protest march campaign fundraise sponsor donate gift "
    "invest save sign enroll register qualify graduate pass fail propose celebrate host "
    "visit explore hang feed walk groom wash bathe paint decorate redecorate move pack unpack "
    "renovate remodel fix cook bake grow harvest pick climb hike bike surf dive ski skate "
    "travel fly drive commute tour sightsee camp fish hunt meet date marry divorce separate "
    "adopt foster raise babysit teach coach train practice rehearse perform compete race "
    "finish complete submit publish launch release open close expand quit retire resign "
    "promote transfer relocate sell buy purchase rent lease borrow lend owe earn spend "
    "volunteer help support mentor lead manage run organize plan schedule book reserve "
    "engage divorce propose freelance consult diagnose injure sprain fracture twist tear "
    "meditate journal swim stretch bike switch smoke vape drink leave fire lay "
    "appreciate value cherish admire respect treasure adore hate dislike prefer wonder "
    "hope wish guess suppose believe doubt agree disagree mention notice recognize "
    "recommend suggest advise warn promise admit deny explain describe discuss argue "
    "complain apologize forgive thank praise blame accept reject refuse ignore avoid "
    "prevent protect save rescue defend attack chase catch miss hit kick throw toss "
    "grab hold hug kiss touch push pull lift carry drag shake wave point nod smile laugh "
    "cry scream shout whisper sigh breathe sneeze cough sleep nap rest relax chill "
    "wrap unwrap gather collect sort organize arrange prepare plan draft sketch design "
    "invent discover explore investigate analyze analyse study review revise edit proofread "
    "translate interpret compose arrange record film shoot capture photograph frame print "
    "post share upload download stream binge browse scroll search google "
    "shop order deliver ship pack wrap mail text call phone email message chat "
    "celebrate honor honour remember memorialize mourn grieve heal recover survive thrive "
    "struggle cope manage handle balance juggle prioritize focus concentrate "
    "pursue chase follow lead guide coach mentor teach train educate inspire motivate "
    "encourage empower uplift comfort console reassure support help assist serve volunteer "
    "donate contribute raise fundraise sponsor organize host attend join participate "
    "compete win lose tie score beat train practice rehearse perform audition "
    "apply interview submit publish release launch open close expand grow shrink "
    "renovate remodel repaint redecorate build construct assemble install repair fix "
    "clean tidy declutter garden plant water prune harvest mow rake shovel "
    "adopt foster nurture raise babysit feed walk groom bathe train "
    "hike climb camp kayak canoe paddle surf ski snowboard skate swim dive snorkel fish "
    "visit tour explore travel fly drive ride commute sail cruise wander roam "
    "sound seem look mean matter appear become remain"
)
# States that say something with what they are about: "curious about", "swamped with",
# "involved in".
STATES = _set(
    "curious swamped busy overwhelmed inspired blessed involved engaged hooked stuck bored "
    "fascinated impressed surrounded focused committed dedicated devoted obsessed"
)
# What a person feels, said with "feel" or "get" ("I felt so proud and grateful", "been getting
# stressed"): emotions and moods, not judgements of a thing ("good", "amazing").
FEELINGS = _set(
    "proud grateful thankful motivated inspired stressed anxious nervous worried scared afraid "
    "excited thrilled happy sad lonely low welcome lucky blessed relieved calm peaceful "
    "confident overwhelmed exhausted drained frustrated angry upset hopeful energized empowered "
    "alive accepted supported loved appreciated content satisfied fulfilled homesick "
    "nostalgic guilty ashamed embarrassed jealous heartbroken devastated discouraged "
    "encouraged determined optimistic pessimistic rested refreshed connected disconnected "
    "insecure uneasy restless"
)
# Feelings that say little alone after "I'm" ("I'm happy to hear that"): kept only with what
# they are about.
MILD_FEELINGS = _set("happy sad excited thrilled calm peaceful content alive welcome upset angry")
# Words that grade a feeling and say nothing themselves: "so proud", "kinda low".
INTENSIFIERS = _set(
    "so really very super kinda pretty quite a bit little incredibly totally truly "
    "extremely more most too even just always sometimes lately"
)
