import Foundation
import ParleyCore

/// Spend per day stacked by model, as the values of the `usage_chart` partial: an inline SVG readable without
/// JavaScript (each bar an image with its `<title>` and `aria-label`), a legend, and the same figures as a table.
enum UsageChart {
    /// The drawing's size in SVG units, and the room kept for the axis labels.
    static let (width, height, left, right, top, bottom) = (720.0, 240.0, 64.0, 8.0, 8.0, 22.0)
    /// The costliest models get a colour each; the others are drawn together as "Other models".
    static let namedSeries = 7

    /// The partial's values for the rows of `period`, under `caption`.
    static func values(_ daily: [DailyModelUsage], period: UsagePeriod, caption: String) -> [String: Any] {
        var costByModel: [String: Int64] = [:]
        for row in daily { costByModel[row.model, default: 0] += row.totals.costMicros }
        let ranked = costByModel.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
        var names = Array(ranked.prefix(namedSeries))
        if ranked.count > namedSeries { names.append("Other models") }
        let seriesOf = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($1, min($0, namedSeries)) })

        var costs: [UsageDay: [Int64]] = [:]
        for row in daily {
            costs[row.day, default: Array(repeating: 0, count: names.count)][seriesOf[row.model] ?? 0] +=
                row.totals.costMicros
        }
        let scale = niceCeiling(costs.values.map { $0.reduce(0, +) }.max() ?? 0)
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let slot = plotWidth / Double(period.dayCount)
        let days = period.days
        let amount = { (micros: Int64) in MicroDollars.display(micros) }

        var bars: [[String: Any]] = []
        var tableRows: [[String: Any]] = []
        for (index, day) in days.enumerated() {
            let perSeries = costs[day] ?? Array(repeating: 0, count: names.count)
            let total = perSeries.reduce(0, +)
            tableRows.append([
                "day": day.description, "cells": perSeries.map { ["amount": amount($0)] }, "total": amount(total),
            ])
            guard total > 0 else { continue }
            var stacked = 0.0
            var segments: [[String: Any]] = []
            for (series, micros) in perSeries.enumerated() where micros > 0 {
                let segmentHeight = Double(micros) / Double(scale) * plotHeight
                stacked += segmentHeight
                segments.append([
                    "series": series, "x": number(left + Double(index) * slot + slot * 0.1),
                    "y": number(top + plotHeight - stacked), "width": number(max(slot * 0.8, 0.5)),
                    "height": number(segmentHeight), "title": "\(names[series]): \(amount(micros))",
                ])
            }
            let parts = perSeries.enumerated().filter { $0.element > 0 }.map {
                "\(names[$0.offset]) \(amount($0.element))"
            }
            bars.append([
                "label": "\(DayText.long(day)): \(amount(total)) (\(parts.joined(separator: ", ")))",
                "segments": segments,
            ])
        }
        let gridlines = (0...4).map { step -> [String: Any] in
            let y = number(top + plotHeight - plotHeight * Double(step) / 4)
            return [
                "y": y, "label_y": number(top + plotHeight - plotHeight * Double(step) / 4 + 4),
                "label": amount(scale * Int64(step) / 4),
            ]
        }
        let every = max(1, Int((Double(days.count) / 8).rounded(.up)))
        let dayLabels = stride(from: 0, to: days.count, by: every).map { index -> [String: Any] in
            ["x": number(left + (Double(index) + 0.5) * slot), "label": DayText.short(days[index])]
        }
        return [
            "caption": caption, "bars": bars, "gridlines": gridlines, "day_labels": dayLabels,
            "has_bars": !bars.isEmpty,
            "series": names.enumerated().map { ["index": $0.offset, "name": $0.element] }, "table_rows": tableRows,
            "view_box": "0 0 \(Int(width)) \(Int(height))", "axis_x": number(left), "axis_end": number(width - right),
        ]
    }

    /// The smallest 1, 2 or 5 times a power of ten (from one cent) that is at least `micros`: the top of the scale.
    static func niceCeiling(_ micros: Int64) -> Int64 {
        var power: Int64 = 10_000
        while true {
            for factor: Int64 in [1, 2, 5] where factor * power >= micros { return factor * power }
            power *= 10
        }
    }

    private static func number(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
