// The abbreviation lists of the sentence splitter, one set per language. A token is the text
// between the last space and the period ("Sra" in "la Sra. Pérez", "ej" in "p. ej.").
#include "sentence_abbreviations.h"

namespace tts::frontend::detail {

namespace {
// Made once and never destroyed (*new): a synthesis still running when its program exits may use
// them after static destructors have run, until the engine's exit handler stops it.
const SentenceAbbreviations& english() {
  static const SentenceAbbreviations& lists = *new SentenceAbbreviations{
      {"Mr",   "Mrs",  "Ms",   "Dr",   "Prof", "St",  "Mt",   "Rev", "Fr",     "Gen",
       "Sen",  "Rep",  "Gov",  "Capt", "Lt",   "Col", "Sgt",  "Hon", "Messrs", "Mme",
       "Mlle", "Pres", "Supt", "Cmdr", "Adm",  "Maj", "Insp", "Det", "Dept"},
      {"vs", "e.g", "i.e", "cf", "approx", "ca", "viz", "eg", "ie"},
      {"No", "Nos", "Fig", "Vol", "Ch", "pp", "p", "Art", "Sec", "Eq"},
      {"etc", "Inc", "Ltd", "Co", "Corp", "Jr", "Sr", "Bros", "Ave", "Blvd", "Rd", "esp", "al",
       "Ph.D"},
      {"The",     "A",     "An",   "I",      "It",    "He",    "She",   "We",     "They",
       "You",     "This",  "That", "These",  "Those", "There", "Then",  "But",    "And",
       "So",      "Yet",   "Or",   "If",     "When",  "While", "After", "Before", "Although",
       "However", "In",    "On",   "At",     "For",   "As",    "Our",   "My",     "His",
       "Her",     "Their", "Its",  "What",   "Who",   "Why",   "How",   "Where",  "Is",
       "Are",     "Was",   "Were", "Please", "Now",   "Today", "Yes"}};
  return lists;
}

const SentenceAbbreviations& spanish() {
  static const SentenceAbbreviations& lists = *new SentenceAbbreviations{
      {"Sr", "Sra", "Srta", "Sres", "Dr", "Dra", "Lic", "Ing", "Prof", "Ud", "Uds", "Vd", "Av",
       "Avda", "Sta", "Sto", "Gral", "Cap"},
      {"p", "ej", "vs", "cf", "aprox"},
      {"núm", "Núm", "pág", "págs", "art", "Art", "cap", "fig", "vol", "tel", "Tel"},
      {"etc", "Etc", "Cía", "S.A", "S.L"},
      {"El",       "La",      "Los",     "Las",      "Un",      "Una",    "Yo",  "Él",   "Ella",
       "Nosotros", "Ellos",   "Usted",   "Este",     "Esta",    "Esto",   "Eso", "Pero", "Y",
       "O",        "Si",      "Cuando",  "Entonces", "Hoy",     "Ahora",  "Por", "Para", "En",
       "Con",      "Sin",     "No",      "Sí",       "Gracias", "Es",     "Fue", "Hay",  "Mi",
       "Su",       "Nuestro", "Después", "Luego",    "También", "Además", "Qué", "Cómo", "Dónde"}};
  return lists;
}

const SentenceAbbreviations& french() {
  static const SentenceAbbreviations& lists = *new SentenceAbbreviations{
      {"M", "MM", "Mme", "Mmes", "Mlle", "Mlles", "Dr", "Pr", "Me", "St", "Ste", "av", "bd", "Mgr"},
      {"p", "ex", "cf", "env", "c.-à-d", "vs"},
      {"n", "no", "p", "art", "chap", "vol", "fig", "tél", "Tél"},
      {"etc", "Cie", "av. J.-C", "apr. J.-C"},
      {"Le",    "La",    "Les",   "Un",      "Une",         "Je",        "Il",       "Elle", "Nous",
       "Vous",  "Ils",   "Elles", "Ce",      "Cette",       "Ces",       "Mais",     "Et",   "Ou",
       "Si",    "Quand", "Alors", "Puis",    "Aujourd'hui", "En",        "Dans",     "Pour", "Avec",
       "Sans",  "Non",   "Oui",   "Merci",   "C'est",       "Mon",       "Ma",       "Son",  "Sa",
       "Notre", "Votre", "Leur",  "Ensuite", "Enfin",       "Cependant", "Pourtant", "On"}};
  return lists;
}

const SentenceAbbreviations& italian() {
  static const SentenceAbbreviations& lists = *new SentenceAbbreviations{
      {"Sig", "Sigg", "Dott", "Dr", "Prof", "Ing", "Avv", "Geom", "Rag", "On", "Egr", "Gent",
       "Spett", "S"},
      {"p.es", "es", "cfr", "ca", "vs"},
      {"n", "pag", "pagg", "art", "cap", "fig", "vol", "tel", "Tel"},
      {"ecc", "S.p.A", "S.r.l"},
      {"Il",  "Lo",    "La",  "I",       "Gli",    "Le",     "Un",     "Una",    "Io",
       "Lui", "Lei",   "Noi", "Voi",     "Loro",   "Questo", "Questa", "Quello", "Ma",
       "E",   "O",     "Se",  "Quando",  "Poi",    "Oggi",   "Ora",    "In",     "Per",
       "Con", "Senza", "Non", "Sì",      "Grazie", "È",      "Era",    "C'è",    "Mio",
       "Mia", "Suo",   "Sua", "Inoltre", "Quindi", "Dopo",   "Però",   "Allora", "Anche"}};
  return lists;
}

const SentenceAbbreviations& russian() {
  static const SentenceAbbreviations& lists = *new SentenceAbbreviations{
      {"ул", "им", "проф", "акад", "напр", "пер", "просп", "тов", "гр", "ст"},
      {"см", "т.е", "т.к", "т.н", "ср"},
      {"д", "кв", "стр", "с", "рис", "табл", "гл", "№"},
      {"др", "т.д", "т.п", "руб", "коп", "тыс", "г", "гг", "в", "вв"},
      {"Я",       "Он",      "Она", "Оно",   "Мы",  "Вы",     "Они",    "Это",   "Этот",
       "Эта",     "Но",      "И",   "А",     "Или", "Если",   "Когда",  "Потом", "Затем",
       "Сегодня", "Теперь",  "В",   "На",    "С",   "По",     "Для",    "Не",    "Да",
       "Нет",     "Спасибо", "Как", "Что",   "Где", "Почему", "Мой",    "Моя",   "Его",
       "Её",      "Их",      "Там", "Здесь", "Так", "Тогда",  "Однако", "Кроме", "После"}};
  return lists;
}
}  // namespace

const SentenceAbbreviations& sentence_abbreviations(TextRules rules) {
  switch (rules) {
    case TextRules::kSpanish:
      return spanish();
    case TextRules::kFrench:
      return french();
    case TextRules::kItalian:
      return italian();
    case TextRules::kRussian:
      return russian();
    default:
      return english();
  }
}

}  // namespace tts::frontend::detail
