"""Entity resolution across scripts and legal systems (issue 33): legal forms of companies outside English and
Western Europe ("株式会社", "有限公司", "(주)", "ПАО «…»", "A.Ş.", "S.A.B. de C.V.") and administrative affixes of
places ("市", "省", "특별시", "г.", "область") read off the name for the comparison and the block, as the
Western legal forms are; a bare place name may be another level's ("吉林" the province, "吉林市" the city)."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import read_name

from .test_resolve import together
from .test_resolve_classes import apart_rule, resolved


@pytest.mark.parametrize("long,short", [
    ("ソフトバンク株式会社", "ソフトバンク"),
    ("株式会社ファーストリテイリング", "ファーストリテイリング"),
    ("比亚迪股份有限公司", "比亚迪"),
    ("联想集团有限公司", "联想"),
    ("华为技术有限公司", "华为技术"),
    ("현대자동차(주)", "현대자동차"),
    ("주식회사 카카오", "카카오"),
    ("㈜엘지화학", "엘지화학"),
    ("ОАО «Роснефть»", "Роснефть"),
    ("ТОВ «Рошен»", "Рошен"),
    ("Arçelik A.Ş.", "Arçelik"),
    ("Fomento Económico Mexicano, S.A.B. de C.V.", "Fomento Económico Mexicano"),
    ("Flipkart Internet Pvt. Ltd.", "Flipkart Internet"),
    ("Kone Oyj", "Kone"),
    ("PT Telkom Indonesia Tbk", "Telkom Indonesia"),
    ("Emaar Properties ش.م.ع", "Emaar Properties"),
])
def test_a_company_with_and_without_its_legal_form_of_another_script_is_one(long, short):
    resolution = resolved((long, "company", f"{long} is a large company."), (short, "company", "A brand."))
    assert together(resolution.graph, long, short)


@pytest.mark.parametrize("name", ["株式会社", "市", "г.", "(주)", "有限公司", "область"])
def test_a_name_that_is_only_a_designator_keeps_it(name):
    form = read_name(name)
    assert not form.legal and form.core


def test_group_alone_is_part_of_a_chinese_name():
    assert read_name("海尔集团").core == "海尔集团" and not read_name("海尔集团").legal


@pytest.mark.parametrize("affixed,bare", [
    (("杭州市", "geo", "杭州市位于中国东部沿海。"), ("杭州", "geo", "杭州是中国东部的一座历史文化名城。")),
    (("仙台市", "geo", "仙台市は宮城県の県庁所在地である。"), ("仙台", "geo", "仙台は東北地方最大の都市である。")),
    (("성남시", "geo", "성남시는 경기도에 있다."), ("성남", "geo", "성남은 수도권의 도시이다.")),
    (("浙江省", "geo", "浙江省位于中国东南沿海。"), ("浙江", "geo", "浙江是中国经济发达的省份。")),
    (("г. Новосибирск", "geo", "Г. Новосибирск — административный центр."),
     ("Новосибирск", "geo", "Новосибирск — крупнейший город Сибири.")),
    (("Свердловская обл.", "geo", "A region of the Urals."), ("Свердловская область", "geo", "Its capital is Yekaterinburg.")),
])
def test_a_place_with_and_without_its_administrative_affix_is_one(affixed, bare):
    assert together(resolved(affixed, bare).graph, affixed[0], bare[0])


@pytest.mark.parametrize("affixed,bare,why", [
    # a bare name said to be another level: the city and the prefecture of one name
    (("大阪府", "geo", "大阪府は近畿地方の府である。"), ("大阪", "geo", "大阪は日本第二の都市である。"),
     "of one name"),
    (("长春市", "geo", "长春市是一座城市。"), ("长春", "geo", "长春是一个省份。"), "of one name"),
    # the level unsaid, or said both ways
    (("名古屋市", "geo", "名古屋市は中部地方にある。"), ("名古屋", "geo", "名古屋は有名である。"), "level unsaid"),
    # a stem of one letter
    (("津市", "geo", "津市は三重県の都市である。"), ("津", "geo", "津は都市である。"), "one letter"),
    # both affixed, other levels
    (("大阪府", "geo", "大阪府は府である。"), ("大阪市", "geo", "大阪市は市である。"), "different administrative"),
])
def test_a_place_and_its_affix_not_sure_are_kept_apart(affixed, bare, why):
    resolution = resolved(affixed, bare)
    assert resolution.graph.number_of_nodes() == 2
    assert why in apart_rule(resolution, affixed[0], bare[0])


def test_a_company_and_a_person_of_its_stem_are_kept_apart():
    resolution = resolved(("ソニー株式会社", "company", "ソニー株式会社は電機メーカーである。"),
                          ("ソニー", "person", "ソニーはある人物の愛称である。"))
    assert resolution.graph.number_of_nodes() == 2
    assert "another type" in apart_rule(resolution, "ソニー株式会社", "ソニー")


@pytest.mark.parametrize("name", ["Г. Жуков", "М. Горький", "С. Королёв", "Городецкий"])
def test_an_initial_is_no_administrative_abbreviation(name):
    assert read_name(name).legal == ""


def test_a_bare_name_ending_like_an_affix_meets_its_affixed_name():
    # "都" of "成都" reads as an affix too: the bare key meets the affixed stem, in the block and the rule
    resolution = resolved(("成都市", "geo", "成都市位于四川盆地西部。"), ("成都", "geo", "成都是四川的省会。"))
    assert together(resolution.graph, "成都市", "成都")


@pytest.mark.parametrize("name,core,legal", [
    ("トヨタ自動車(株)", "トヨタ自動車", "kk"), ("㈱ニトリ", "ニトリ", "kk"),
    ("Công ty Cổ phần Sữa Việt Nam", "sua viet nam", "jsc"), ("Avast Software s.r.o.", "avast software", "sro"),
    ("渋谷区", "渋谷", "place district"), ("Республика Татарстан", "татарстан", "place republic"),
    ("自治区", "自治区", ""), ("特别行政区", "特别行政区", ""),
])
def test_designators_read_off_the_name(name, core, legal):
    form = read_name(name)
    assert (form.core, form.legal) == (core, legal)


def test_indonesian_companies_written_with_and_without_pt_and_persero_are_one():
    # "PT" every Indonesian company writes, "(Persero)" a state-owned one: no other company, as "Ltd." is Siemens's
    state = ("PT Bank Mandiri (Persero) Tbk", "perusahaan", "Bank BUMN terbesar di Indonesia.")
    for other in ("PT Bank Mandiri Tbk", "Bank Mandiri Tbk"):
        assert together(resolved(state, (other, "company", "Indonesian state-owned bank.")).graph, state[0], other)
    assert not together(resolved(("Siemens AG", "company", "German engineering group."),
                                 ("Siemens Ltd.", "company", "Indian subsidiary of Siemens.")).graph,
                        "Siemens AG", "Siemens Ltd.")
